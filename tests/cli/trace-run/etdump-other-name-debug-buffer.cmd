cd $CASE_TMP && trace-run $OLDPWD/$FIXTURES/pte/et-add.pte --etdump run.dump --log outputs --clock fake > /dev/null && ls && etdump-inspect values run.dump
