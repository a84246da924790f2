trace-run $FIXTURES/pte/et-add.pte --outputs $FIXTURES/pte/et-add.pte
