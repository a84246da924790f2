#pragma once

// Reading file headers byte by byte: little-endian integers at any alignment, and a file's
// four-byte identifier as text for messages. Shared by libcore's readers (program, .ptd, .bpte)
// and libinspect's ETDump reader, so that every tool names a wrong identifier the same way.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace etkit {

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

/// The four bytes at `p` (an identifier or magic) as text for messages: printable ASCII as is,
/// other bytes and the quote escaped as \xNN (messages put identifiers in quotes).
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

}  // namespace etkit
