# A fuzzer-made program whose max_pool2d kernel_size is near 2^62: the output-size arithmetic
# overflowed int64 (UBSan). The window's parameters are now bounded to int32 first: a clean
# error naming the instruction and the argument.
cd $SRC && trace-run tests/data/fuzz/pte/max-pool-kernel-overflow.pte
