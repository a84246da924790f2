etdump-inspect show samples/mlp.json
