etdump-inspect compare $FIXTURES/generated/et-add.intermediate.etdump $FIXTURES/generated/rs-add.intermediate.etdump --top 5
