etdump-inspect stats $FIXTURES/etdump/et-tutorial-cnn.etdp --format xml
