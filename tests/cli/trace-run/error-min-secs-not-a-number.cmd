trace-run $FIXTURES/pte/et-add.pte --min-secs soon
