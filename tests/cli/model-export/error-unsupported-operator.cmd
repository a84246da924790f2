model-export tests/cli/model-export/data/unsupported_operator.json -o $CASE_TMP/x.pte
