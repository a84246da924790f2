trace-run $FIXTURES/pte/et-add.pte --iterations 3 --warmup 2 | sed -E 's/[0-9]+(\.[0-9]+)? (ns|us|ms|s)\b/T/g'
