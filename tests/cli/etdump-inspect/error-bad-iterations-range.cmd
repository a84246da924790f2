etdump-inspect stats $FIXTURES/etdump/et-tutorial-cnn.etdp --iterations 5:2
