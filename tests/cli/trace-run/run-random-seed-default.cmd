trace-run $TEST_DATA/random_ops.pte && trace-run $TEST_DATA/random_ops.pte --random-seed 0
