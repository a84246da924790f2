debugmap-build $FIXTURES/pte/et-add.pte --etrecord $FIXTURES/etrecord/et-example-etrecord-2023.bin -o -
