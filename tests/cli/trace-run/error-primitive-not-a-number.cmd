cd $TEST_DATA && trace-run primitive_inputs.pte -i ones -i 3 -i two
