#pragma once

// Small private helpers for reading file headers, shared by the program, .ptd and .bpte readers.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "etkit/core/tensor.h"

namespace etkit::internal {

/// Little-endian integers at `p` (no alignment needed).
inline uint16_t read_u16_le(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
inline uint32_t read_u32_le(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}
inline uint64_t read_u64_le(const uint8_t* p) {
  return static_cast<uint64_t>(read_u32_le(p)) | (static_cast<uint64_t>(read_u32_le(p + 4)) << 32);
}

/// Four bytes of an identifier or magic as text for messages; other bytes escaped as \xNN
/// (the quote too, since messages put identifiers in quotes).
inline std::string printable_identifier(const uint8_t* p) {
  std::string out;
  for (size_t i = 0; i < 4; ++i) {
    if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\'') {
      out += static_cast<char>(p[i]);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", p[i]);
      out += buf;
    }
  }
  return out;
}

/// 0, 1, ..., kMaxRank-1: the dim order of tensors whose file omits it.
inline constexpr uint8_t kIdentityDimOrder[kMaxRank] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                        8, 9, 10, 11, 12, 13, 14, 15};

}  // namespace etkit::internal
