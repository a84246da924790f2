model-export tests/cli/model-export/data/npy_mismatch.json -o $CASE_TMP/x.pte
