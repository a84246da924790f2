cd $CASE_TMP && head -c 15000 $SRC/$FIXTURES/etrecord/et-example-etrecord-2023.bin >cut.bin && debugmap-build $SRC/$FIXTURES/pte/et-add.pte --etrecord cut.bin -o -
