trace-run $FIXTURES/pte/et-arduino-add-const.pte -i random:1
