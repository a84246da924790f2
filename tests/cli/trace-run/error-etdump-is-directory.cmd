cd $CASE_TMP && mkdir adir && trace-run $SRC/$FIXTURES/pte/et-add.pte --etdump adir
