trace-run $FIXTURES/pte/et-add.pte --list --method backward
