etdump-inspect report - < $FIXTURES/etdump/et-tutorial-cnn.etdp
