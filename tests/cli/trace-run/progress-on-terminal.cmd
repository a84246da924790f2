script -qec "trace-run $FIXTURES/pte/et-add.pte --iterations 50" /dev/null | tr '\r' '\n' | grep -o 'iteration 1/50' | head -1
