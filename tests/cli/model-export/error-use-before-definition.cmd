model-export tests/cli/model-export/data/use_before_definition.json -o $CASE_TMP/x.pte
