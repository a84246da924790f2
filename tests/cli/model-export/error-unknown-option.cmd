model-export samples/mlp.json --bogus
