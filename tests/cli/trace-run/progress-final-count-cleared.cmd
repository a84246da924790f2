script -qec "trace-run $FIXTURES/pte/et-add.pte --iterations 50" /dev/null | tr "\r" "\n" | grep -E "iteration 50/50|^.\[K|^method" | cat -v
