etdump-inspect stats $FIXTURES/etdump/et-tutorial-cnn.etdp --by operator --format json --time-unit us
