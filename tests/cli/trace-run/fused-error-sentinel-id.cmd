cd $TEST_DATA && trace-run fused_bad_sentinel.pte
