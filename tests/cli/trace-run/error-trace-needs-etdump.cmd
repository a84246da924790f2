trace-run $FIXTURES/pte/et-add.pte --log intermediates
