trace-run $FIXTURES/pte/et-add.pte --outputs $CASE_TMP > /dev/null && sed -i 's/False/True /' $CASE_TMP/output_0.npy && cd $CASE_TMP && trace-run $OLDPWD/$FIXTURES/pte/et-add.pte -i output_0.npy
