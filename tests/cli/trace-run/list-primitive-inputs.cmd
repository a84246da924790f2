cd $TEST_DATA && trace-run primitive_inputs.pte --list
