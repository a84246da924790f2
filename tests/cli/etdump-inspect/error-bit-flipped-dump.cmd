cd $CASE_TMP && cp $SRC/$FIXTURES/etdump/et-tutorial-cnn.etdp flip.etdp && printf "\xff\xff\xff\x7f" | dd of=flip.etdp bs=1 seek=40 conv=notrunc 2>/dev/null && etdump-inspect show flip.etdp
