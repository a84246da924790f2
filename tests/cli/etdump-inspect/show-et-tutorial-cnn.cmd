etdump-inspect show $FIXTURES/etdump/et-tutorial-cnn.etdp --time-unit us
