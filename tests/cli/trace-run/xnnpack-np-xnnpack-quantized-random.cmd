trace-run $FIXTURES/pte/np-xnnpack-quantized.pte -i random:3
