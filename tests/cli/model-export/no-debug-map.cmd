model-export samples/stateful.json -o $CASE_TMP/s.pte --no-debug-map && cd $CASE_TMP && ls
