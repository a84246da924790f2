# Two dumps are one JSON document: a table each, and the first dump's warning (the trace memory
# was full) at the end as well as on stderr; logged values are arrays.
cd $CASE_TMP && trace-run $SRC/$FIXTURES/pte/et-add.pte --etdump run.etdump --clock fake --trace-memory 8K --iterations 100 > /dev/null 2>&1; trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake --log intermediates > /dev/null && etdump-inspect show run.etdump x.etdump --block 1 --name 'OPERATOR_CALL|Method::execute' --format json
