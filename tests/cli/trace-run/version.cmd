trace-run --version
