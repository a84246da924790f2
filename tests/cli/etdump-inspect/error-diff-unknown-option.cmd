etdump-inspect diff $FIXTURES/generated/et-add.stock_runner.etdump $FIXTURES/generated/rs-add.stock_runner.etdump --jobs 3
