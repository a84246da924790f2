model-export tests/cli/model-export/data/argument_kind.json -o $CASE_TMP/x.pte
