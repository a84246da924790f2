cd $TEST_DATA && trace-run stateful_shared.pte --call set_cache:random:3 --call get_cache --memory --format json | sed -E 's/"peak_rss_bytes": [0-9]+/"peak_rss_bytes": T/' | sed -n '/"memory"/,$p'
