trace-run $FIXTURES/pte/rs-datamap-external.pte --ptd $FIXTURES/ptd/et-linear-external-oldschema.ptd
