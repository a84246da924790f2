trace-run $FIXTURES/pte/np-lstm-custom-op.pte
