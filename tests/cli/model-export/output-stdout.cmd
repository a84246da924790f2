model-export samples/stateful.json -o - --report > $CASE_TMP/a.pte && model-export samples/stateful.json -o $CASE_TMP/b.pte && cmp $CASE_TMP/a.pte $CASE_TMP/b.pte && echo identical
