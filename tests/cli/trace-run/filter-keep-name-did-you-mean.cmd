cd $CASE_TMP && trace-run $SRC/$FIXTURES/pte/et-add.pte --etdump run.etdump --log intermediates --keep-name ad.out --clock fake
