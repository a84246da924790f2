trace-run $FIXTURES/bpte/et-bundled-add-mul.bpte --format json
