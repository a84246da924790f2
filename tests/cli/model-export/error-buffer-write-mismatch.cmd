model-export tests/cli/model-export/data/buffer_write_mismatch.json -o $CASE_TMP/x.pte
