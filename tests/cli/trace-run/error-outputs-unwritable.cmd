cd $CASE_TMP && touch afile && trace-run $SRC/$FIXTURES/pte/et-add.pte --outputs afile/out
