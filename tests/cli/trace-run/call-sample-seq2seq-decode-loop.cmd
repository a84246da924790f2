trace-run $SAMPLES/seq2seq.pte --call encode:random:100 --call decode_step*8:random:1 --iterations 3 --warmup 1 | sed -E 's/[0-9]+(\.[0-9]+)? (ns|us|ms|s)\b/T/g'
