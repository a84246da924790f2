#include "etkit/inspect/content_hash.h"

#include <cstdio>

namespace etkit::inspect {

uint64_t fnv1a64(std::span<const uint8_t> bytes, uint64_t h) {
  for (uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string content_hash(std::span<const uint8_t> dump, std::span<const uint8_t> debug_buffer) {
  char text[32];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx",
                static_cast<unsigned long long>(fnv1a64(debug_buffer, fnv1a64(dump))));
  return text;
}

}  // namespace etkit::inspect
