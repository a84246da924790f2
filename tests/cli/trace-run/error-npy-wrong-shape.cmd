trace-run $FIXTURES/pte/et-add.pte --outputs $CASE_TMP > /dev/null && trace-run $FIXTURES/pte/et-arduino-add-const.pte -i $CASE_TMP/output_0.npy
