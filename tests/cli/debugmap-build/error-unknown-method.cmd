cd $CASE_TMP && cp $TEST_DATA/test_delegate.pte $SRC/tests/cli/debugmap-build/inputs/unknown_method.json . && debugmap-build test_delegate.pte --delegate-map unknown_method.json -o -
