cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump a.etdump --log outputs --clock fake > /dev/null && etdump-inspect compare a.etdump a.etdump --debug-map-a nothing.json --debug-map-b nothing.json
