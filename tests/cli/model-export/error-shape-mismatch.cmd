model-export tests/cli/model-export/data/shape_mismatch.json -o $CASE_TMP/x.pte
