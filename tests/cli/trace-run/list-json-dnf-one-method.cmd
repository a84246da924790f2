trace-run $FIXTURES/pte/dnf-training-mutable-data.pte --list --format json --method __et_training_fqn_forward
