cd $CASE_TMP && trace-run $SRC/$FIXTURES/pte/et-add.pte --etdump run.etdump --clock fake --warmup 3 --iterations 4 --log outputs > /dev/null && etdump-inspect info run.etdump --format json
