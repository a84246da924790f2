trace-run $TEST_DATA/stateful_shared.pte --call :ones
