trace-run $FIXTURES/pte/djl-xnnpack-conv.pte --memory --format json | sed -E 's/"peak_rss_bytes": [0-9]+/"peak_rss_bytes": T/; s/"([a-z0-9_]+)_ms": [0-9.e+-]+/"\1_ms": T/'
