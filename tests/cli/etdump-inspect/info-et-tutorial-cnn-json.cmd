etdump-inspect info $FIXTURES/etdump/et-tutorial-cnn.etdp --format json
