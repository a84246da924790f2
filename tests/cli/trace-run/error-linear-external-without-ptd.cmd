trace-run $FIXTURES/pte/et-linear-external.pte
