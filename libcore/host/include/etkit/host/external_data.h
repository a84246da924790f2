#pragma once

// `.ptd` external data (FlatTensor, identifier `FT01`): tensors kept outside the program, looked
// up by fully qualified name when a method loads EXTERNAL tensors.
//
// Both layouts are read: the current one (named_data with tensor layouts) and the older one of
// early 2025 (a `tensors` table with names and offsets), told apart by which table fields the
// root carries and then verified with that layout's own schema.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "etkit/runtime/data_loader.h"
#include "etkit/runtime/result.h"
#include "etkit/runtime/named_data_map.h"
#include "etkit/runtime/program.h"
#include "etkit/runtime/scalar_type.h"

namespace etkit {

/// A verified `.ptd` file. Keeps pointers into the loader's bytes.
class ExternalData final : public NamedDataMap {
 public:
  /// Parses and verifies `loader`'s bytes (header, FlatBuffer, every segment range, every
  /// entry's key, layout and byte range; keys must be unique). Errors: `InvalidData` naming what
  /// is wrong.
  static Result<ExternalData> load(const DataLoader& loader);

  /// Which layout the file uses: 1 = current, 0 = the older one.
  int layout_version() const { return layout_version_; }
  size_t size() const { return count_; }
  /// Entry `i` in file order. Current layout: `named_data`, `bytes` = the whole segment. Older
  /// layout: `tensors` (key = fully qualified name, `bytes` = exactly the tensor's bytes), then
  /// its `named_data` (raw bytes, no layout). Errors: `InvalidArgument` for `i >= size()`.
  Result<NamedTensorData> entry(size_t i) const;
  /// The entry called `key`. Errors: `NotFound`.
  Result<NamedTensorData> find(std::string_view key) const override;

 private:
  ExternalData() = default;
  std::span<const uint8_t> file_;
  const void* root_ = nullptr;
  uint64_t segment_base_ = 0;
  size_t count_ = 0;
  int layout_version_ = 1;
};

/// Whether any method of `program` has a tensor whose data is EXTERNAL (kept in a `.ptd`
/// file); without one, a `.ptd` given with the program is never read.
bool uses_external_data(const Program& program);

}  // namespace etkit
