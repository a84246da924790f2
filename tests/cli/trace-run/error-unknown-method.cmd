trace-run $FIXTURES/pte/et-add.pte --method backward
