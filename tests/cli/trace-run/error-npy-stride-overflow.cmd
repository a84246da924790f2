# A fuzzer-made .npy: shape (5, 800, 1, 400, 800, 0, ...) holds no elements, but its strides pass
# 2^31 (they overflowed int64 in UBSan). The loader refuses it, naming the file and the shape.
cd $SRC && trace-run $FIXTURES/pte/et-add.pte -i tests/data/fuzz/npy/zero-size-stride-overflow.npy
