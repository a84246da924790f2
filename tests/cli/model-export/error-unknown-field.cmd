model-export tests/cli/model-export/data/unknown_field.json -o $CASE_TMP/x.pte
