cd $CASE_TMP && mkdir run.debug.bin && trace-run $SRC/$FIXTURES/pte/et-add.pte --etdump run.etdump --log outputs
