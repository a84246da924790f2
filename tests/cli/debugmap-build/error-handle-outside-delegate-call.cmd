debugmap-build $TEST_DATA/test_delegate.pte --delegate-map tests/cli/debugmap-build/inputs/handle_outside_call.json -o -
