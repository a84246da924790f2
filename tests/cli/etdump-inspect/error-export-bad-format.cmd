etdump-inspect export $FIXTURES/etdump/et-tutorial-cnn.etdp --format perfetto
