trace-run $FIXTURES/pte/et-arduino-kws-cortexm.pte
