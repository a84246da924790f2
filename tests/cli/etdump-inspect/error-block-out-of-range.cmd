etdump-inspect show $FIXTURES/etdump/et-tutorial-cnn.etdp --block 2
