model-export - -o $CASE_TMP/s.pte --report < samples/stateful.json && ls $CASE_TMP
