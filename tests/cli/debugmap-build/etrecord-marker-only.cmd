debugmap-build $FIXTURES/pte/et-add.pte --etrecord $FIXTURES/etrecord/kokoro-etrecord-identifier-only.bin -o -
