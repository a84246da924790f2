trace-run $FIXTURES/pte/et-add.pte --etdump $CASE_TMP/x.etdump --log intermediates --keep-name '(unclosed'
