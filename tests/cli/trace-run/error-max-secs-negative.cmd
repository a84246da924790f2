trace-run $FIXTURES/pte/et-add.pte --max-secs -1
