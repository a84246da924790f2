cd $TEST_DATA && trace-run stateful_shared_stale.pte --call set_cache --call get_cache
