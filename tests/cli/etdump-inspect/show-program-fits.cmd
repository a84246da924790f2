etdump-inspect show $FIXTURES/generated/et-add.stock_runner.etdump --program $FIXTURES/pte/et-add.pte
