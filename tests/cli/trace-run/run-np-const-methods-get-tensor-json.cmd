trace-run $FIXTURES/pte/np-const-methods.pte --method get_tensor --format json | sed -E 's/"([a-z0-9_]+)_ms": [0-9.e+-]+/"\1_ms": T/'
