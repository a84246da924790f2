cd $CASE_TMP && trace-run $OLDPWD/$FIXTURES/pte/et-add.pte -i $OLDPWD/tests/data/nan.npy -i ones --etdump run.etdump --log outputs --clock fake && etdump-inspect values run.etdump
