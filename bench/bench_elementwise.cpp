// Placeholder: benchmarks of issue #3 are being written.
