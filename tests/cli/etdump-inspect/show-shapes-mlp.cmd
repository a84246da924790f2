# Shapes come from the debug map debugmap-build writes from the program (the tracer records none).
cd $CASE_TMP && debugmap-build $SAMPLES/mlp.pte -o mlp.map.json > /dev/null && trace-run $SAMPLES/mlp.pte -i random:1 --etdump x.etdump --clock fake > /dev/null && etdump-inspect show x.etdump --debug-map mlp.map.json --time-unit us
