etdump-inspect values $FIXTURES/generated/et-add.intermediate.etdump --program $FIXTURES/pte/et-add.pte
