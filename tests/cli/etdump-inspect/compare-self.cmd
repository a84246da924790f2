cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake --log intermediates >/dev/null && etdump-inspect compare x.etdump x.etdump
