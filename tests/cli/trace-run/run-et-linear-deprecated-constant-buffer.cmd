trace-run $FIXTURES/pte/et-linear-deprecated-constant-buffer.pte
