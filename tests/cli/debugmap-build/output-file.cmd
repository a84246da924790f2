cd $CASE_TMP && debugmap-build $TEST_DATA/test_delegate.pte --delegate-map $SRC/tests/cli/debugmap-build/inputs/test_delegate.map.json -o map.json && head -c 60 map.json && echo && ls
