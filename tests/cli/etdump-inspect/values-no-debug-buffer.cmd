cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake --log intermediates >/dev/null && rm x.debug.bin && etdump-inspect values x.etdump --format tsv
