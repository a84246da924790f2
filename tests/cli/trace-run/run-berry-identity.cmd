trace-run $FIXTURES/pte/berry-identity-no-instructions.pte -i random:7 --format json | sed -E 's/"([a-z0-9_]+)_ms": [0-9.e+-]+/"\1_ms": T/'
