debugmap-build $FIXTURES/pte/et-add.pte --delegate-maps x.json -o -
