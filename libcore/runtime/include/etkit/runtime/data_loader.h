#pragma once

// Where program bytes come from: the `DataLoader` interface and a caller's buffer. The runtime
// does no file I/O of its own; the host layer maps files (etkit/host/file_data_loader.h).
//
// Loaders hand out the whole file as one read-only span. Programs, bundles and external data keep
// pointers into it, so a loader must outlive everything loaded from it.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "etkit/runtime/result.h"

namespace etkit {

/// Read-only bytes of one file or buffer.
class DataLoader {
 public:
  virtual ~DataLoader() = default;
  /// All bytes. The address is aligned to at least 16 bytes.
  virtual std::span<const uint8_t> data() const = 0;
};

/// A caller's buffer (not copied). The buffer must be 16-byte aligned and outlive the loader.
class BufferDataLoader final : public DataLoader {
 public:
  explicit BufferDataLoader(std::span<const uint8_t> data) : data_(data) {}
  std::span<const uint8_t> data() const override { return data_; }

 private:
  std::span<const uint8_t> data_;
};

}  // namespace etkit
