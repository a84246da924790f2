trace-run $FIXTURES/pte/et-add.pte --etdump /nonexistent/dir/x.etdump
