trace-run
