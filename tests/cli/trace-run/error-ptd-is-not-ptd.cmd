trace-run $FIXTURES/pte/rs-datamap-external.pte --ptd $FIXTURES/pte/et-add.pte
