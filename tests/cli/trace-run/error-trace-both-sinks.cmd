trace-run $FIXTURES/pte/et-add.pte --etdump $CASE_TMP/x.etdump --debug-out $CASE_TMP/d.bin --debug-buffer-size 1M
