debugmap-build $FIXTURES/pte/et-add.pte -o -
