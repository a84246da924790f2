model-export tests/cli/model-export/data/version.json -o $CASE_TMP/x.pte
