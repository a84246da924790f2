trace-run $FIXTURES/pte/np-xnnpack-add.pte
