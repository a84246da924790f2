model-export tests/cli/model-export/data/broadcast_mismatch.json -o $CASE_TMP/x.pte
