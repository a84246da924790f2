cd $TEST_DATA && trace-run stateful_shared_stale.pte --list
