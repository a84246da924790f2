etdump-inspect stats $FIXTURES/etdump/et-tutorial-cnn.etdp --by debug-handle
