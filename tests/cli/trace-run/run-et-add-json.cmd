trace-run $FIXTURES/pte/et-add.pte --format json | sed -E 's/"(min|median|max)_ms": [0-9.e+-]+/"\1_ms": T/'
