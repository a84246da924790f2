debugmap-build $FIXTURES/pte/djl-xnnpack-conv.pte -o -
