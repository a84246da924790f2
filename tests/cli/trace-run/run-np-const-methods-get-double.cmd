trace-run $FIXTURES/pte/np-const-methods.pte --method get_double
