# A source may repeat the program's arguments, never change them (et-add's tensors are [1]).
debugmap-build $FIXTURES/pte/et-add.pte --delegate-map tests/cli/debugmap-build/inputs/et-add-wrong-args.map.json -o -
