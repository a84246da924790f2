cd $CASE_TMP && trace-run $SRC/$FIXTURES/bpte/et-bundled-add-mul.bpte --etdump run.etdump --profile method --clock fake | tail -2 && $ETDUMP_JSON run.etdump | grep -E '"name"|"bundled_input_index"'
