cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake --iterations 2 >/dev/null && etdump-inspect stats x.etdump --program $SAMPLES/mlp.pte --by operator --time-unit us
