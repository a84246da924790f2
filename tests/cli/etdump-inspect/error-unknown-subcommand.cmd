etdump-inspect inspect $FIXTURES/generated/et-add.stock_runner.etdump
