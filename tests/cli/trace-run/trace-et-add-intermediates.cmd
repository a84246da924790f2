cd $CASE_TMP && trace-run $SRC/$FIXTURES/pte/et-add.pte --etdump run.etdump --log intermediates --clock fake && $ETDUMP_JSON run.etdump && od -A d -t x1 run.debug.bin
