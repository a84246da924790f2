trace-run $FIXTURES/pte/rs-datamap-external.pte --ptd $FIXTURES/ptd/rs-datamap-external.ptd -i random:2
