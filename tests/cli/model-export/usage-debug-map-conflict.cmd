model-export samples/stateful.json -o $CASE_TMP/s.pte --debug-map m.json --no-debug-map
