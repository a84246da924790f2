trace-run $TEST_DATA/random_ops.pte --random-seed -3; trace-run $TEST_DATA/random_ops.pte --random-seed 1.5; trace-run $TEST_DATA/random_ops.pte --random-seed 9223372036854775808
