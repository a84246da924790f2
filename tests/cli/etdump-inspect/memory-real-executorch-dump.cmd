etdump-inspect memory $FIXTURES/generated/et-add.stock_runner.etdump
