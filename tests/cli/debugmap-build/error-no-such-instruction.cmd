debugmap-build $TEST_DATA/test_delegate.pte --delegate-map tests/cli/debugmap-build/inputs/no_such_instruction.json -o -
