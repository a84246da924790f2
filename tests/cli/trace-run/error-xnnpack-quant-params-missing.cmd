# A fuzzer-made program whose XNNPACK graph has a quantized value naming PerTensorQuant but holding
# no table (FlatBuffers verifies that as valid): it was dereferenced (UBSan). Now a clean error.
cd $SRC && trace-run tests/data/fuzz/pte/xnnpack-quant-params-missing.pte
