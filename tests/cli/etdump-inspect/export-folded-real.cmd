etdump-inspect export $FIXTURES/etdump/et-tutorial-cnn.etdp --format folded | head -12
