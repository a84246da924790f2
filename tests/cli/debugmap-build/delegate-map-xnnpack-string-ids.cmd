debugmap-build $FIXTURES/pte/np-xnnpack-add.pte --delegate-map tests/cli/debugmap-build/inputs/xnnpack_add.json -o -
