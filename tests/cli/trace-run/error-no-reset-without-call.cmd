trace-run $FIXTURES/pte/et-add.pte --no-reset
