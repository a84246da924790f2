cd $TEST_DATA && trace-run primitive_inputs.pte -i random:5 -i 3 -i 2.0 -i true
