model-export tests/cli/model-export/data/dtype_mismatch.json -o $CASE_TMP/x.pte
