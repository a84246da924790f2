cd $TEST_DATA && trace-run stateful_shared.pte --list --format json
