debugmap-build $FIXTURES/pte/et-add.pte --etrecord no-such.bin -o -
