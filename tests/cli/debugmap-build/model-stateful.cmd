cd $SAMPLES && debugmap-build stateful.pte --delegate-map stateful.debugmap.json --model $SRC/samples/stateful.json -o -
