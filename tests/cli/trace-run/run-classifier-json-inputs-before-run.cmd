cd $SAMPLES && trace-run classifier.pte -i ones --format json | head -30
