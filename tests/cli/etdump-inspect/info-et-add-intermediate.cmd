etdump-inspect info $FIXTURES/generated/et-add.intermediate.etdump
