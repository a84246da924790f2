debugmap-build $TEST_DATA/test_delegate.pte --delegate-map tests/cli/debugmap-build/inputs/identifier_on_kernel.json -o -
