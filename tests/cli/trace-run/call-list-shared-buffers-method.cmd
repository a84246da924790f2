trace-run $TEST_DATA/stateful_shared.pte --list --method set_cache
