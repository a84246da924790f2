trace-run $TEST_DATA/stateful_shared.pte --call get_cache --min-secs 1
