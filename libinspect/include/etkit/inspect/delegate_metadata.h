#pragma once

// Decoding a delegate event's metadata bytes (`delegate_debug_metadata`, backend-defined) from a
// declared layout, for `etdump-inspect show --delegate-metadata LAYOUT`: in place of the Python
// metadata parser ExecuTorch's Inspector takes.
//
// A layout is either a built-in, `hex` (the bytes as lowercase hex) or `utf8` (the bytes as
// text), each giving one column `metadata`; or a comma-separated list of fields `TYPE:NAME`, read
// in order from the first byte, little-endian, without padding. TYPE is u8, u16, u32, u64, i8,
// i16, i32, i64, f32 or f64; NAME (letters, digits, `_`, not starting with a digit) names the
// field's column. E.g. `u32:elements,u64:counter` (the fused delegate's 12 bytes,
// formats/fused_delegate.md).
//
// Decoding: empty metadata gives empty cells (the event carries none). Metadata shorter than the
// layout gives the text `<short>` for each field it does not cover entirely; bytes beyond the
// layout are ignored. Invalid UTF-8 under `utf8` gives `<not utf-8>`. A u64 above INT64_MAX is
// given as decimal text.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/inspect/table.h"

namespace etkit::inspect {

/// The type of a metadata field.
enum class MetadataType : uint8_t { U8, U16, U32, U64, I8, I16, I32, I64, F32, F64 };

/// Bytes a field of `type` takes.
size_t metadata_type_size(MetadataType type);

/// One field of a layout.
struct MetadataField {
  std::string name;
  MetadataType type = MetadataType::U8;
  bool operator==(const MetadataField&) const = default;
};

/// A parsed layout.
struct MetadataLayout {
  enum class Kind : uint8_t { Fields, Hex, Utf8 };
  Kind kind = Kind::Fields;
  std::vector<MetadataField> fields;  ///< Kind::Fields only; not empty, names unique.

  /// The column names: the fields' names, or `metadata` for a built-in.
  std::vector<std::string> columns() const;
  /// Bytes the fields take together (0 for a built-in).
  size_t size() const;
};

/// Parses `text` (see the file comment). Errors: `InvalidArgument` naming the layout and the
/// problem ("bad metadata layout 'u33:x': field 1: unknown type 'u33' (expected u8, u16, u32,
/// u64, i8, i16, i32, i64, f32 or f64)"): an empty layout or field, a field without `:`, an
/// unknown type, a bad or repeated name.
Result<MetadataLayout> parse_metadata_layout(std::string_view text);

/// One cell per column of `layout` for `bytes` (see the file comment): integers as `int64_t`,
/// floats as `double`, text as `std::string`.
std::vector<Cell> decode_metadata(const MetadataLayout& layout, std::span<const uint8_t> bytes);

}  // namespace etkit::inspect
