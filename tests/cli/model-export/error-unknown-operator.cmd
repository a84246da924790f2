model-export tests/cli/model-export/data/unknown_operator.json -o $CASE_TMP/x.pte
