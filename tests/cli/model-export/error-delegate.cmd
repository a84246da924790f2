model-export tests/cli/model-export/data/delegate.json -o $CASE_TMP/x.pte
