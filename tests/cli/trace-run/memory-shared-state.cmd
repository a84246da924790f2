trace-run $TEST_DATA/stateful_shared.pte --call set_cache:random:3 --call get_cache --memory | sed -E 's/peak RSS [0-9]+/peak RSS N/'
