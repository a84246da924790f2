cd $CASE_TMP && trace-run $SRC/$FIXTURES/pte/et-add.pte --etdump run.etdump --clock fake --trace-memory 8K --iterations 100 > /dev/null 2>&1; etdump-inspect diff run.etdump run.etdump --time-unit us
