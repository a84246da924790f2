cd $CASE_TMP && trace-run $SRC/$FIXTURES/pte/et-add.pte --etdump run.etdump --keep-name add.out --clock fake
