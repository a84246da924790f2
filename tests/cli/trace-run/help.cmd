trace-run --help
