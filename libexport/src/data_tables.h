#pragma once

// Private to libexport: the program-wide constant and mutable data tables the exporter fills
// while it writes the methods, and later lays out as the constant and mutable-data segments.

#include <cstdint>
#include <map>
#include <vector>

namespace etkit::exporter::detail {

// Index 0 of both tables is the reserved placeholder ("no data").
class DataTables {
 public:
  // Adds constant bytes and returns their index. Constants are de-duplicated by content and
  // 16-byte aligned, as ExecuTorch does.
  uint32_t add_constant(const std::vector<uint8_t>& bytes);
  // Adds a buffer's initial bytes and returns their index. Packed without padding
  // (ExecuTorch's layout).
  uint32_t add_mutable(const std::vector<uint8_t>& bytes);

  bool has_mutable() const { return mutable_offsets_.size() > 1; }

  std::vector<uint8_t> constants_;
  std::vector<uint64_t> constant_offsets_{0};
  std::vector<uint8_t> mutable_;
  std::vector<uint64_t> mutable_offsets_{0};

 private:
  std::map<std::vector<uint8_t>, uint32_t> constant_index_;
};

}  // namespace etkit::exporter::detail
