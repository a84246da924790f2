trace-run $TEST_DATA/random_ops.pte --random-seed 7 && trace-run $TEST_DATA/random_ops.pte --random-seed 7 --format json | grep -c '"values"' && trace-run $TEST_DATA/random_ops.pte --random-seed 8
