mkdir $CASE_TMP/w && cd $CASE_TMP/w && model-export $SRC/samples/classifier.json --check && echo "files written: $(ls -A | wc -l)"
