trace-run $FIXTURES/pte/et-add.pte --warmup -1
