cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake >/dev/null && etdump-inspect show x.etdump --program $SRC/$FIXTURES/pte/et-add.pte
