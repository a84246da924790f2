cd $CASE_TMP && trace-run $SAMPLES/mlp.pte -i random:1 --etdump x.etdump --clock fake > /dev/null && etdump-inspect stats x.etdump --by shape
