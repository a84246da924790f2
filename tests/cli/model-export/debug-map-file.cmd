model-export samples/stateful.json -o $CASE_TMP/s.pte --debug-map $CASE_TMP/map.json && cd $CASE_TMP && ls && head -3 map.json
