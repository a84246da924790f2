trace-run $FIXTURES/pte/et-arduino-add-const.pte
