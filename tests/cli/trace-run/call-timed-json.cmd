cd $TEST_DATA && trace-run stateful_shared.pte --call set_cache:random:3 --call get_cache:zeros --iterations 2 --format json | sed -E 's/"([a-z0-9_]+)_ms": [0-9.e+-]+/"\1_ms": T/'
