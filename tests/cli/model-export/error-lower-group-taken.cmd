sed 's/"fused"/"lower"/g' tests/cli/e2e-delegate/data/mlp_fused.json | model-export - --lower 'x' --check
