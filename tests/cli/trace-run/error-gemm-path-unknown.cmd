trace-run $SAMPLES/mlp.pte --gemm-path neon
