cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake --iterations 2 >/dev/null && etdump-inspect show x.etdump --block 0 --format tsv --time-unit s
