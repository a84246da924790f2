etdump-inspect diff - $FIXTURES/etdump/et-tutorial-cnn.etdp --format csv < $FIXTURES/etdump/et-tutorial-cnn.etdp
