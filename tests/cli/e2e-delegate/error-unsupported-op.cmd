sed 's/aten::tanh.out/aten::hardtanh.out/' tests/cli/e2e-delegate/data/mlp_fused.json | model-export - -o $CASE_TMP/x.pte
