etdump-inspect stats - --time-unit us < $FIXTURES/etdump/et-tutorial-cnn.etdp
