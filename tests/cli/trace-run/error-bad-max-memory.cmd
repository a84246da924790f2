trace-run $FIXTURES/pte/et-add.pte --max-memory lots
