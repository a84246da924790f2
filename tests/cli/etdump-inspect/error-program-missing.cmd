etdump-inspect stats $FIXTURES/etdump/et-tutorial-cnn.etdp --program no-such.pte
