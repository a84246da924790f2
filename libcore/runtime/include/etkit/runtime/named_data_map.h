#pragma once

// Named data a program refers to by key but does not hold itself: tensors kept outside the
// program (EXTERNAL tensors, looked up by fully qualified name) and delegates' named data.
//
// The runtime only looks keys up through this interface. Where the bytes come from (a `.ptd`
// file, etkit/host/external_data.h, or an embedded user's own table) is the caller's business.

#include <cstdint>
#include <span>
#include <string_view>

#include "etkit/runtime/result.h"
#include "etkit/runtime/scalar_type.h"

namespace etkit {

/// One named blob of data. Every span points into memory owned by the map's provider.
struct NamedTensorData {
  std::string_view key;
  /// False when the provider stores raw bytes with no tensor layout.
  bool has_layout = false;
  ScalarType dtype = ScalarType::Byte;
  std::span<const int32_t> sizes;
  std::span<const uint8_t> dim_order;
  std::span<const uint8_t> bytes;
};

/// Named data by key. Implementations must be usable from several methods at once (`find` is
/// const and must not mutate shared state).
class NamedDataMap {
 public:
  virtual ~NamedDataMap() = default;
  /// The entry called `key`. Errors: `NotFound`.
  virtual Result<NamedTensorData> find(std::string_view key) const = 0;
};

}  // namespace etkit
