debugmap-build $FIXTURES/pte/et-add.pte --delegate-map tests/cli/debugmap-build/inputs/bad_syntax.json -o -
