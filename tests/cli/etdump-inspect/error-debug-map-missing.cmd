etdump-inspect show $FIXTURES/etdump/et-tutorial-cnn.etdp --debug-map no-such.debugmap.json
