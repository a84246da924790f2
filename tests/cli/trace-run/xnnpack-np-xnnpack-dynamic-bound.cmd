trace-run $FIXTURES/pte/np-xnnpack-dynamic-bound.pte
