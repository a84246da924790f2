cd $SAMPLES && debugmap-build stateful.pte --model $SRC/samples/stateful.json -o - | head -40
