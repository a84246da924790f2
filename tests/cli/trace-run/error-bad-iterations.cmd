trace-run $FIXTURES/pte/et-add.pte --iterations 0
