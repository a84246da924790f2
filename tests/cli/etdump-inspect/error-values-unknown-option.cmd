etdump-inspect values $FIXTURES/generated/et-add.intermediate.etdump --atol 1
