etdump-inspect show $FIXTURES/generated/et-add.stock_runner.etdump --block x
