cd $SAMPLES && trace-run seq2seq.pte --call encode:ones --call decode_step --etdump $CASE_TMP/run.etdump --log intermediates --keep-name addm.out --clock fake > /dev/null
