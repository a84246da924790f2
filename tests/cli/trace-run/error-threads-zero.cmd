trace-run $FIXTURES/pte/et-add.pte --threads 0
