trace-run $FIXTURES/pte/np-const-methods.pte
