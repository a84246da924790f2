cd $CASE_TMP && trace-run $TEST_DATA/fused_linear.pte -i random:3 --etdump run.etdump --log intermediates --clock fake --drop-name 'linear_.*' && etdump-inspect values run.etdump
