etdump-inspect diff $FIXTURES/etdump/et-tutorial-cnn.etdp $FIXTURES/generated/et-add.stock_runner.etdump --method-map forward=nope
