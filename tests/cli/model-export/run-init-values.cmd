model-export tests/cli/model-export/data/init_values.json -o $CASE_TMP/counter.pte --report && trace-run $CASE_TMP/counter.pte --call read --call bump --call bump --call read
