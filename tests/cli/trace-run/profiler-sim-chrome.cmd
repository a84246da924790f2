cd $CASE_TMP && trace-run $SRC/$FIXTURES/pte/et-add.pte --etdump run.etdump --clock fake --profiler sim --iterations 2 > /dev/null && etdump-inspect export run.etdump --format chrome
