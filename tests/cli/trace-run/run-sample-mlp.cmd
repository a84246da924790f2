cd $SAMPLES && trace-run mlp.pte
