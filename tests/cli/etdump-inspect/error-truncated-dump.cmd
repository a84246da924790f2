cd $CASE_TMP && head -c 1000 $SRC/$FIXTURES/etdump/et-tutorial-cnn.etdp > cut.etdp && etdump-inspect stats cut.etdp
