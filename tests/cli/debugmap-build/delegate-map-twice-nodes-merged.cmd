debugmap-build $TEST_DATA/test_delegate.pte --delegate-map tests/cli/debugmap-build/inputs/test_delegate.map.json --delegate-map tests/cli/debugmap-build/inputs/test_delegate.nodes.json -o -
