trace-run $SAMPLES/mlp.pte --gemm-path avx512
