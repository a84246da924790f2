# A real program with a dynamic-shape XNNPACK call: its sizes are the program's upper bounds.
cd $CASE_TMP && debugmap-build $SRC/$FIXTURES/pte/np-xnnpack-dynamic-bound.pte -o m.map.json > /dev/null && trace-run $SRC/$FIXTURES/pte/np-xnnpack-dynamic-bound.pte --etdump x.etdump --clock fake > /dev/null && etdump-inspect show x.etdump --debug-map m.map.json --time-unit us --name DELEGATE_CALL
