trace-run $FIXTURES/pte/et-add.pte --min-secs 2 --max-secs 1
