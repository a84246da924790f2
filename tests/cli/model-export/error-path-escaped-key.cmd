model-export tests/cli/model-export/data/quoted_key.json --check
