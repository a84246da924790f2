etdump-inspect values $FIXTURES/generated/et-add.intermediate.etdump --format json
