cd $CASE_TMP && trace-run $SAMPLES/seq2seq.pte --call encode:random:100 --call decode_step*2:random:1 --etdump run.etdump --clock fake > /dev/null && etdump-inspect memory run.etdump
