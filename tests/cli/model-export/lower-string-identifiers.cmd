cd $CASE_TMP && model-export $SRC/samples/classifier.json --lower 'fc[12]|act[12]|logits' --lower-identifiers string -o m.pte && trace-run m.pte --list && grep -A12 '"delegates"' m.debugmap.json
