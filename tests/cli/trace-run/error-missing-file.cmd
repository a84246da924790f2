trace-run does-not-exist.pte
