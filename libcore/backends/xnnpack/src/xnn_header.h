#pragma once

// The header in front of an XnnpackBackend blob (formats/README.md): 4 bytes, the magic `XH00`,
// then little-endian u16 header length, u32 FlatBuffer offset, u32 FlatBuffer size, u32 constant
// area offset and u64 constant area size. Older blobs have no header and are one FlatBuffer.

#include <cstdint>
#include <span>

#include "etkit/runtime/result.h"

namespace etkit::xnn::detail {

inline constexpr size_t kHeaderMinSize = 30;

/// Where the parts of a blob are. Without a header the FlatBuffer is the whole blob and the
/// constant area is empty.
struct BlobLayout {
  bool has_header = false;
  std::span<const uint8_t> flatbuffer;
  std::span<const uint8_t> constants;
};

/// True if `blob` has the `XH00` magic at byte 4.
bool has_xnn_header(std::span<const uint8_t> blob);

/// Splits `blob`. Errors (`DelegateFailed`): a header shorter than its fields, a header length
/// under 30, a FlatBuffer or constant area outside the blob, the two overlapping, a FlatBuffer
/// too small to hold its root offset and identifier.
Result<BlobLayout> parse_blob_layout(std::span<const uint8_t> blob);

}  // namespace etkit::xnn::detail
