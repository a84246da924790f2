trace-run $FIXTURES/pte/np-const-methods.pte --method get_double --outputs $CASE_TMP > /dev/null && od -A d -t x1 $CASE_TMP/output_0.npy
