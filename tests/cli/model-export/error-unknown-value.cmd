model-export tests/cli/model-export/data/unknown_value.json -o $CASE_TMP/x.pte
