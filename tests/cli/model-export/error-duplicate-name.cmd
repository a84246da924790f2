model-export tests/cli/model-export/data/duplicate_name.json -o $CASE_TMP/x.pte
