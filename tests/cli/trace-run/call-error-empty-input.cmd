trace-run $TEST_DATA/stateful_shared.pte --call set_cache:ones,
