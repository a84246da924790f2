model-export tests/cli/model-export/data/shared_buffer_shapes.json -o $CASE_TMP/x.pte
