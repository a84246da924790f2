model-export tests/cli/model-export/data/duplicate_method.json -o $CASE_TMP/x.pte
