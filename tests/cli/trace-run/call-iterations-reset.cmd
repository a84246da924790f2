trace-run $TEST_DATA/stateful_shared.pte --call set_cache:random:3 --call get_cache:zeros --iterations 3 | grep -v '^call\|^load\|^method\|^sequence'
