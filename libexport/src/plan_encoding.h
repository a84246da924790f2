#pragma once

// Private to libexport: how the exporter spells model values in ExecuTorch's program format:
// dim orders, dtypes, operator names, the pytree strings of a method's signature, and
// little-endian bytes.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "etkit/runtime/scalar_type.h"
#include "program_layout.h"

namespace etkit::exporter::detail {

// The dim order of a contiguous tensor of `rank` dimensions: 0, 1, ..., rank - 1.
std::vector<uint8_t> contiguous_dim_order(size_t rank);

// ExecuTorch's compact pytree strings: the call signature of `n` inputs (args tuple, kwargs
// dict), and `n` outputs.
std::string encoded_inputs(size_t n);
std::string encoded_outputs(size_t n);

// "aten::add.out" -> {"aten::add", "out"}; no overload: {full, ""}.
std::pair<std::string, std::string> split_operator(std::string_view full);

inline fb::ScalarType fb_dtype(ScalarType t) {
  return static_cast<fb::ScalarType>(static_cast<int8_t>(t));
}

// Appends `v`'s bytes (host order: little-endian on every machine etkit supports).
template <typename T>
void append_bytes(std::vector<uint8_t>* out, T v) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out->insert(out->end(), b, b + sizeof(T));
}

}  // namespace etkit::exporter::detail
