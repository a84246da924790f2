cd $SAMPLES && trace-run mlp.pte -i random:11 --format json | sed -E 's/"([a-z0-9_]+)_ms": [0-9.e+-]+/"\1_ms": T/'
