model-export samples/stateful.json -o $CASE_TMP/stateful.pte && cd $CASE_TMP && ls && trace-run stateful.pte --list
