etdump-inspect stats $FIXTURES/generated/et-add.stock_runner.etdump --job 2
