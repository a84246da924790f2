cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake --iterations 3 >/dev/null && etdump-inspect diff x.etdump x.etdump --statistic median --min-samples 5
