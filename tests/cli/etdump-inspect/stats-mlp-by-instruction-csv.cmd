cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake --iterations 5 >/dev/null && etdump-inspect stats x.etdump --by instruction --time-unit us --format csv
