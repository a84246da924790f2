cd $CASE_TMP && trace-run $SRC/$FIXTURES/pte/et-add.pte --etdump run.etdump --profiler-plugin $SRC/README.md --profiler toy 2>&1 | sed "s|$SRC/||"; echo "exit ${PIPESTATUS[0]}"
