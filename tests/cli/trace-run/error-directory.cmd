trace-run $FIXTURES/pte
