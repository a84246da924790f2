trace-run $FIXTURES/pte/et-linear-external.pte --ptd $FIXTURES/ptd/et-linear-external-oldschema.ptd --format json | sed -E 's/"([a-z0-9_]+)_ms": [0-9.e+-]+/"\1_ms": T/'
