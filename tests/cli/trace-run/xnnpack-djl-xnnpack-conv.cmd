trace-run $FIXTURES/pte/djl-xnnpack-conv.pte
