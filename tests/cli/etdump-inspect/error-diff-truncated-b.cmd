cd $CASE_TMP && head -c 300 $SRC/$FIXTURES/etdump/et-tutorial-cnn.etdp > cut.etdump && etdump-inspect diff $SRC/$FIXTURES/etdump/et-tutorial-cnn.etdp cut.etdump
