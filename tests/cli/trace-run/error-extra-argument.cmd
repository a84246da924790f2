trace-run $FIXTURES/pte/et-add.pte extra.pte
