cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --clock monotonic --etdump run.etdump > /dev/null && etdump-inspect info --format csv run.etdump | grep -E "^(key|clock|ticks_per_second),"
