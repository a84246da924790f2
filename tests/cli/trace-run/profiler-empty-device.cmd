trace-run $FIXTURES/pte/et-add.pte --etdump $CASE_TMP/run.etdump --profiler cpu,,sim
