trace-run $FIXTURES/pte/et-add.pte --etdump
