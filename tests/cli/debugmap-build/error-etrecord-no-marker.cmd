cd $CASE_TMP && sed s/ETRECORD_V0/ETRECORD_V9/g $SRC/$FIXTURES/etrecord/kokoro-etrecord-identifier-only.bin >renamed.bin && debugmap-build $SRC/$FIXTURES/pte/et-add.pte --etrecord renamed.bin -o -
