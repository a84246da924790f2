cd $CASE_TMP && debugmap-build $SRC/$FIXTURES/pte/et-stories260k-qnn-multimethod.pte -o qnn.json
