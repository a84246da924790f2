trace-run $SAMPLES/seq2seq.pte --list --method decode_step
