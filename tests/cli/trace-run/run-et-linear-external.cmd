trace-run $FIXTURES/pte/et-linear-external.pte --ptd $FIXTURES/ptd/et-linear-external-oldschema.ptd --format json | sed -E 's/"(min|median|max)_ms": [0-9.e+-]+/"\1_ms": T/'
