trace-run $FIXTURES/pte/et-add.pte -i random:x
