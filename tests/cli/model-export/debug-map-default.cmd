model-export samples/classifier.json -o $CASE_TMP/classifier.pte && cat $CASE_TMP/classifier.debugmap.json
