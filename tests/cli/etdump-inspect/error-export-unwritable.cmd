etdump-inspect export $FIXTURES/etdump/et-tutorial-cnn.etdp -o no-such-dir/x.json
