etdump-inspect diff - - < $FIXTURES/etdump/et-tutorial-cnn.etdp
