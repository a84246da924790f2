etdump-inspect memory $FIXTURES/etdump/et-tutorial-cnn.etdp --format csv
