trace-run $FIXTURES/pte/dnf-training-mutable-data.pte
