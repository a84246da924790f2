debugmap-build $FIXTURES/pte/et-add.pte --delegate-map no-such.json -o -
