debugmap-build $FIXTURES/pte/np-xnnpack-quantized.pte -o -
