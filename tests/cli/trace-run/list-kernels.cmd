trace-run --list-kernels
