#pragma once

// NumPy `.npy` files (format versions 1.0, 2.0 and 3.0), read into and written from tensors.
//
// Supported: little-endian (or byte-order-free) arrays in C order of bool, int8, uint8, int16,
// uint16, int32, uint32, int64, uint64, float16, float32 and float64. Anything else (Fortran
// order, big-endian data, object or structured dtypes, data shorter or longer than the shape
// needs) is an `InvalidData` error that says what it met.

#include <string>

#include "etkit/host/host_tensor.h"
#include "etkit/runtime/result.h"

namespace etkit {

/// Parses a whole `.npy` file held in memory into a contiguous tensor (the data is copied).
/// Errors: `InvalidData`, including for bytes left over after the data.
Result<HostTensor> parse_npy(std::span<const uint8_t> bytes);
/// Reads `path`. Errors: `AccessFailed`, `InvalidData`; messages start with the path.
Result<HostTensor> read_npy(const std::string& path);
/// Serializes `t` (any dim order; written in C order) as a version 1.0 `.npy` with NumPy's own
/// header layout (data 64-byte aligned). Errors: `NotSupported` for dtypes NumPy cannot name
/// (e.g. bfloat16), `InvalidArgument` for a tensor without data.
Result<std::vector<uint8_t>> encode_npy(const Tensor& t);
/// Writes `t` to `path` through a temporary file `<path>.tmp-<pid>` renamed into place. Errors:
/// `AccessFailed`, and those of `encode_npy`.
Error write_npy(const std::string& path, const Tensor& t);

}  // namespace etkit
