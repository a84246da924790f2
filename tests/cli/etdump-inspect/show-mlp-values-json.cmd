cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake --log intermediates >/dev/null && etdump-inspect show x.etdump --format json --block 1 --name OPERATOR_CALL
