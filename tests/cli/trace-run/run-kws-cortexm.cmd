trace-run $FIXTURES/pte/et-arduino-kws-cortexm.pte -i random:5 && trace-run $FIXTURES/pte/et-arduino-kws-cortexm.pte -i ones --format json | sed -E 's/"([a-z0-9_]+)_ms": [0-9.e+-]+/"\1_ms": T/'
