trace-run $FIXTURES/pte/djl-med-output-512mib-plan.pte --max-memory 1G -i random:4
