trace-run $FIXTURES/pte/et-add.pte --etdump $CASE_TMP/x.etdump --log intermediates --debug-out /nonexistent/dir/d.bin
