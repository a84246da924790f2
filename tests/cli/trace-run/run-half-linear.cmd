cd $CASE_TMP && trace-run $TEST_DATA/half_linear.pte && trace-run $TEST_DATA/half_linear.pte --etdump run.etdump --log intermediates --clock fake > /dev/null && etdump-inspect values run.etdump
