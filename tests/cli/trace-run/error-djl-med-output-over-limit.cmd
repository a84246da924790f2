trace-run $FIXTURES/pte/djl-med-output-512mib-plan.pte --max-memory 64M
