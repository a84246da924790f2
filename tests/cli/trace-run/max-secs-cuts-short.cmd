trace-run $FIXTURES/pte/et-add.pte --iterations 1000000000 --max-secs 0.05 2>&1 >/dev/null | sed -E 's/after [0-9]+ of/after N of/'
