cd $CASE_TMP && trace-run-testbackend $TEST_DATA/test_delegate.pte -i random:1 -i random:2 --etdump run.etdump --log intermediates --clock fake && $ETDUMP_JSON run.etdump
