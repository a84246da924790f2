model-export samples/classifier.json -o $CASE_TMP/classifier.pte && trace-run $CASE_TMP/classifier.pte -i random:3
