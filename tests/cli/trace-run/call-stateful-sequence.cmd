trace-run $TEST_DATA/stateful_shared.pte --call get_cache --call set_cache:random:3 --call get_cache:zeros --call set_cache:zeros --call get_cache
