debugmap-build $FIXTURES/pte/et-add.pte --model samples/stateful.json -o -
