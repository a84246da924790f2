cd $CASE_TMP && trace-run $SRC/$FIXTURES/pte/et-add.pte --etdump run.etdump --profiler-plugin no-such-plugin.so --profiler toy
