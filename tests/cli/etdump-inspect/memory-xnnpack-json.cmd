cd $CASE_TMP && trace-run $SRC/$FIXTURES/pte/djl-xnnpack-conv.pte --iterations 2 --etdump run.etdump --clock fake > /dev/null && etdump-inspect memory run.etdump --format json
