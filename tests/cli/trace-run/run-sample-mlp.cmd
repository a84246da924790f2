trace-run $SAMPLES/mlp.pte
