etdump-inspect show $FIXTURES/etdump/et-tutorial-cnn.etdp --delegate-metadata u64:duration
