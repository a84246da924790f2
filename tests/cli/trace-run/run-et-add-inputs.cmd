trace-run $FIXTURES/pte/et-add.pte -i zeros --input random:3
