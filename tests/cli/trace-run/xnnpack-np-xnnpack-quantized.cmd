trace-run $FIXTURES/pte/np-xnnpack-quantized.pte
