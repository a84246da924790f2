trace-run $SAMPLES/mlp.pte --delegate-memory 12Q
