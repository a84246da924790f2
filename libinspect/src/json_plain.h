#pragma once

// Private to libinspect: whether nlohmann writes a string as it is between quotes, for the
// writers that build JSON by hand (json_table_writer.cpp, chrome_trace.cpp) and leave any other
// string to nlohmann, so that its escaping is exact.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace etkit::inspect::detail {

/// Whether `s` is printable ASCII without '"' and '\'. Anything else (control characters,
/// UTF-8, invalid UTF-8) is rare in a dump and needs nlohmann's escaping.
/// Eight bytes at a time: the scan was a quarter of the JSON row writer's time byte by byte.
// Inlined where it is called (in a row writer, a call was a fifth of its cost).
[[gnu::always_inline]] inline bool json_plain(std::string_view s) {
  constexpr uint64_t kOnes = 0x0101010101010101;
  constexpr uint64_t kHigh = 0x8080808080808080;
  // `zero(w)` is non-zero iff a byte of `w` is 0, and `(w - 0x20 * kOnes) & ~w & kHigh` iff a
  // byte is below 0x20 (the classic tests, exact for "some byte"); bytes from 0x80 up are
  // caught by `w & kHigh`.
  auto zero = [](uint64_t w) { return (w - kOnes) & ~w & kHigh; };
  auto unplain = [&](uint64_t w) {
    return (w & kHigh) | ((w - 0x20 * kOnes) & ~w & kHigh) | zero(w ^ (0x22 * kOnes)) |
           zero(w ^ (0x5c * kOnes)) | zero(w ^ (0x7f * kOnes));
  };
  // Fixed-size loads only (a copy of a variable-sized tail into a word stalled on it): the
  // tail is the last 8 bytes, overlapping; shorter strings are two overlapping 4-byte loads or
  // their bytes, with plain 'a's for the rest.
  const char* d = s.data();
  const size_t n = s.size();
  auto load8 = [](const char* at) {
    uint64_t w;
    std::memcpy(&w, at, 8);
    return w;
  };
  uint64_t bad = 0;
  if (n >= 8) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) bad |= unplain(load8(d + i));
    if (i < n) bad |= unplain(load8(d + n - 8));
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, d, 4);
    std::memcpy(&b, d + n - 4, 4);
    bad = unplain(a | (uint64_t{b} << 32));
  } else if (n > 0) {
    auto byte = [&](size_t k) { return uint64_t{static_cast<unsigned char>(d[k])}; };
    bad = unplain(((0x61 * kOnes) & ~uint64_t{0xffffff}) | byte(0) | (byte(n / 2) << 8) |
                  (byte(n - 1) << 16));
  }
  return bad == 0;
}

}  // namespace etkit::inspect::detail
