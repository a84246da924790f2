cd $TEST_DATA && debugmap-build delegate_add.pte -o -
