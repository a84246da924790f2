etdump-inspect stats $FIXTURES/etdump/et-tutorial-cnn.etdp --method forward
