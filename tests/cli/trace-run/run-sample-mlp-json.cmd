cd $SAMPLES && trace-run mlp.pte -i random:11 --format json | sed -E 's/"(min|median|max)_ms": [0-9.e+-]+/"\1_ms": T/'
