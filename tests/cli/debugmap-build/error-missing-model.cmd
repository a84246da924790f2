debugmap-build $FIXTURES/pte/et-add.pte --model no-such.json -o -
