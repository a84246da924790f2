debugmap-build $FIXTURES/pte/et-stories260k-qnn-multimethod.pte --etrecord $FIXTURES/etrecord/et-example-etrecord-2023.bin -o -
