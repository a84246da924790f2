trace-run $FIXTURES/pte/et-add.pte -i 2.0
