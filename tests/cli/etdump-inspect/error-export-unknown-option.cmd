etdump-inspect export $FIXTURES/generated/et-add.intermediate.etdump --time-unit us
