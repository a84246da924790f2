trace-run $FIXTURES/pte/et-add.pte --threads two
