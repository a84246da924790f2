trace-run $FIXTURES/pte/et-add.pte --call forward:ones,random:1 --call forward --outputs $CASE_TMP/out && ls $CASE_TMP/out
