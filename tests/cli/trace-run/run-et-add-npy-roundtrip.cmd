trace-run $FIXTURES/pte/et-add.pte --outputs $CASE_TMP/out > /dev/null && ls $CASE_TMP/out && trace-run $FIXTURES/pte/et-add.pte -i $CASE_TMP/out/output_0.npy -i $CASE_TMP/out/output_0.npy
