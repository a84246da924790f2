# With a debug map that records arguments, the report's operator summary (its top-operators
# table) carries each operator's FLOP share and GFLOP/s: mlp's addmm calls do 72 + 34 FLOPs per
# iteration, 318 in its 18 us over 3 iterations (fake clock): 0.0176667 GFLOP/s.
cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake --iterations 3 >/dev/null && debugmap-build $SAMPLES/mlp.pte -o map.json >/dev/null && etdump-inspect report x.etdump --debug-map map.json -o r.html && $SRC/tests/cli/report_island.sh r.html '[.dumps[0].stats.tables[] | select(.name == "operator_summary") | .rows[] | {operator, flops_percent, gflop_per_s}]'
