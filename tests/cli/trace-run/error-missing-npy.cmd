trace-run $FIXTURES/pte/et-add.pte -i nothing-here.npy
