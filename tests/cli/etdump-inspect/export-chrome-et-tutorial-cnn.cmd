etdump-inspect export $FIXTURES/etdump/et-tutorial-cnn.etdp --block 1 --name "OPERATOR_CALL|Method::.*" -o $CASE_TMP/cnn.json && cat $CASE_TMP/cnn.json
