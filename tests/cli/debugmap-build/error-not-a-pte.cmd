debugmap-build $FIXTURES/pte/djl-corrupt-not-a-pte.pte -o -
