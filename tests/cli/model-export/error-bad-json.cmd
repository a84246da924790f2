model-export tests/cli/model-export/data/bad_json.json -o $CASE_TMP/x.pte
