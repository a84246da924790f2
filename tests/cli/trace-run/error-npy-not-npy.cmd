cp $FIXTURES/pte/et-add.pte $CASE_TMP/x.npy && cd $CASE_TMP && trace-run $OLDPWD/$FIXTURES/pte/et-add.pte -i x.npy
