etdump-inspect show $FIXTURES/etdump/et-tutorial-cnn.etdp --delegate-metadata u33:x
