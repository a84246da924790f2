debugmap-build $TEST_DATA/test_delegate.pte --delegate-map tests/cli/debugmap-build/inputs/unknown_field.json -o -
