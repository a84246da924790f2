debugmap-build $FIXTURES/pte/et-add.pte --etrecord $FIXTURES/pte/et-add.pte -o -
