sed 's/"mode": "manual"/"mode": "manual", "timing": "later"/' tests/cli/e2e-delegate/data/mlp_fused.json | model-export - --check
