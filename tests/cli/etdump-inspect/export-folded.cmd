cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake --iterations 2 >/dev/null && etdump-inspect export x.etdump --format folded
