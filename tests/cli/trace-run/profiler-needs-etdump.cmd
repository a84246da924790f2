trace-run $FIXTURES/pte/et-add.pte --profiler sim
