cd $TEST_DATA && debugmap-build one_bad_method.pte -o -
