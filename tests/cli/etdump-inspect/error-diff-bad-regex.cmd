etdump-inspect diff $FIXTURES/etdump/et-tutorial-cnn.etdp $FIXTURES/etdump/et-tutorial-cnn.etdp --name '('
