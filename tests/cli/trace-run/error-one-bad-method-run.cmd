cd $TEST_DATA && trace-run one_bad_method.pte --method broken
