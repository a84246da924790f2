// The XnnpackBackend blob header (see xnn_header.h).

#include "xnn_header.h"

#include <cstring>

#include "etkit/runtime/bytes.h"

namespace etkit::xnn::detail {

bool has_xnn_header(std::span<const uint8_t> blob) {
  return blob.size() >= 8 && std::memcmp(blob.data() + 4, "XH00", 4) == 0;
}

Result<BlobLayout> parse_blob_layout(std::span<const uint8_t> blob) {
  BlobLayout layout;
  if (!has_xnn_header(blob)) {
    if (blob.size() < 8) {
      return Error(ErrorCode::DelegateFailed,
                   "the blob is %zu bytes: too short for an XNNPACK header or FlatBuffer",
                   blob.size());
    }
    layout.flatbuffer = blob;
    return layout;
  }
  if (blob.size() < kHeaderMinSize) {
    return Error(ErrorCode::DelegateFailed,
                 "the blob is %zu bytes, shorter than its %zu-byte XH00 header", blob.size(),
                 kHeaderMinSize);
  }
  const uint8_t* p = blob.data();
  const uint16_t header_length = read_u16_le(p + 8);
  const uint32_t fb_offset = read_u32_le(p + 10);
  const uint32_t fb_size = read_u32_le(p + 14);
  const uint32_t const_offset = read_u32_le(p + 18);
  const uint64_t const_size = read_u64_le(p + 22);
  if (header_length < kHeaderMinSize) {
    return Error(ErrorCode::DelegateFailed, "XH00 header length %u is under %zu", header_length,
                 kHeaderMinSize);
  }
  const uint64_t size = blob.size();
  if (fb_offset < header_length || fb_offset > size || fb_size > size - fb_offset) {
    return Error(ErrorCode::DelegateFailed,
                 "XH00 header: FlatBuffer at %u, %u bytes, is outside the %llu-byte blob "
                 "(truncated?)",
                 fb_offset, fb_size, static_cast<unsigned long long>(size));
  }
  if (fb_size < 8) {
    return Error(ErrorCode::DelegateFailed, "XH00 header: FlatBuffer size %u is under 8 bytes",
                 fb_size);
  }
  if (const_offset > size || const_size > size - const_offset) {
    return Error(ErrorCode::DelegateFailed,
                 "XH00 header: constant data at %u, %llu bytes, is outside the %llu-byte blob "
                 "(truncated?)",
                 const_offset, static_cast<unsigned long long>(const_size),
                 static_cast<unsigned long long>(size));
  }
  if (const_size > 0 && const_offset < static_cast<uint64_t>(fb_offset) + fb_size) {
    return Error(ErrorCode::DelegateFailed,
                 "XH00 header: constant data at %u overlaps the FlatBuffer at %u (%u bytes)",
                 const_offset, fb_offset, fb_size);
  }
  layout.has_header = true;
  layout.flatbuffer = blob.subspan(fb_offset, fb_size);
  layout.constants = blob.subspan(const_offset, static_cast<size_t>(const_size));
  return layout;
}

}  // namespace etkit::xnn::detail
