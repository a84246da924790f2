trace-run $FIXTURES/pte/djl-corrupt-not-a-pte.pte
