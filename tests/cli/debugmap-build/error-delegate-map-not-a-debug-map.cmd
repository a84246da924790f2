debugmap-build $TEST_DATA/test_delegate.pte --delegate-map samples/stateful.json -o -
