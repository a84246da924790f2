trace-run $FIXTURES/pte/djl-xnnpack-add-unplanned.pte
