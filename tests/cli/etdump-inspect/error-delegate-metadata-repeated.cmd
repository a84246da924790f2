etdump-inspect show $FIXTURES/etdump/et-tutorial-cnn.etdp --delegate-metadata u32:elements,u8:elements
