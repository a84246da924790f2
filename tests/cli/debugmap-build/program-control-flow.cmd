cd $TEST_DATA && debugmap-build control_flow.pte -o -
