model-export tests/cli/model-export/data/argument_count.json -o $CASE_TMP/x.pte
