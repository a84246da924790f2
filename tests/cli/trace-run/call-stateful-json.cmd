cd $TEST_DATA && trace-run stateful_shared.pte --call set_cache:random:3 --call get_cache:zeros --call get_cache --format json
