etdump-inspect diff $FIXTURES/generated/et-add.stock_runner.etdump $FIXTURES/generated/et-add.intermediate.etdump --method-map Execute=forward --method Execute --time-unit ns
