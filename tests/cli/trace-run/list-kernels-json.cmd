trace-run --list-kernels --format json
