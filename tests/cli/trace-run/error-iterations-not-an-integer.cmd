trace-run $FIXTURES/pte/et-add.pte --iterations abc
