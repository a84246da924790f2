etdump-inspect show $FIXTURES/generated/et-add.intermediate.etdump --threshold 5
