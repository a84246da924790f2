etdump-inspect show $FIXTURES/etdump/et-tutorial-cnn.etdp --name "("
