cd $CASE_TMP && trace-run $SRC/$FIXTURES/pte/et-add.pte --etdump add.etdump --clock fake >/dev/null && etdump-inspect show add.etdump
