cd $CASE_TMP && debugmap-build $SRC/$FIXTURES/pte/np-xnnpack-add.pte -o m.json
