trace-run $FIXTURES/pte/et-add.pte --ptd $FIXTURES/ptd/rs-datamap-external.ptd
