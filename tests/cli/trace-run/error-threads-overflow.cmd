trace-run $FIXTURES/pte/et-add.pte --threads 99999999999999999999
