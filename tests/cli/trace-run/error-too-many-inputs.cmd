trace-run $FIXTURES/pte/et-add.pte -i ones -i ones -i ones
