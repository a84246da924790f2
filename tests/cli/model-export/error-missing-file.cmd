model-export tests/cli/model-export/data/nothere.json -o $CASE_TMP/x.pte
