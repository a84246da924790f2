#pragma once

// Private to libinspect: text that streamed writers build in place and hand to the caller's
// writer in pieces of about 64 KiB, without a string per line.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string_view>
#include <vector>

namespace etkit::inspect::detail {

/// Copies `n` bytes from `from` to `to`. Cells are short, and a call to memcpy for a few bytes
/// was a tenth of the writers' time: up to 16 bytes are two overlapping fixed-size copies, which
/// compile to a few moves, and read and write only the `n` bytes (none for n = 0, when `from`
/// may be null).
inline void copy_text(char* to, const char* from, size_t n) {
  if (n > 16) {
    std::memcpy(to, from, n);
  } else if (n >= 8) {
    std::memcpy(to, from, 8);
    std::memcpy(to + n - 8, from + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(to, from, 4);
    std::memcpy(to + n - 4, from + n - 4, 4);
  } else if (n > 0) {
    // The first, middle and last bytes are 1 to 3 bytes without a loop.
    to[0] = from[0];
    to[n / 2] = from[n / 2];
    to[n - 1] = from[n - 1];
  }
}

/// Whether the `n` bytes at `a` and `b` are equal (true for n = 0, when either may be null):
/// up to 16 bytes as two overlapping fixed-size loads each, without a call to memcmp.
inline bool same_text(const char* a, const char* b, size_t n) {
  auto load8 = [](const char* at) {
    uint64_t w;
    std::memcpy(&w, at, 8);
    return w;
  };
  auto load4 = [](const char* at) {
    uint32_t w;
    std::memcpy(&w, at, 4);
    return w;
  };
  if (n > 16) return std::memcmp(a, b, n) == 0;
  if (n >= 8) return ((load8(a) ^ load8(b)) | (load8(a + n - 8) ^ load8(b + n - 8))) == 0;
  if (n >= 4) return ((load4(a) ^ load4(b)) | (load4(a + n - 4) ^ load4(b + n - 4))) == 0;
  if (n == 0) return true;
  return a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1];
}

/// Copies `s` to `p`, which has room for it, and returns the end: for writers that fill a
/// `TextSink::reserve`d region by hand.
inline char* put_chars(char* p, std::string_view s) {
  copy_text(p, s.data(), s.size());
  return p + s.size();
}

class TextSink {
 public:
  explicit TextSink(const std::function<void(std::string_view)>& write)
      : write_(write), buf_(kChunk + 4096) {}

  /// Room for `n` bytes at the returned pointer; `commit` says how many were written.
  char* reserve(size_t n) {
    if (buf_.size() - used_ < n) {
      flush();
      if (buf_.size() < n) buf_.resize(n);
    }
    return buf_.data() + used_;
  }
  /// Takes the bytes written from the last `reserve` up to `end`.
  void commit(const char* end) {
    used_ = static_cast<size_t>(end - buf_.data());
    if (used_ >= kChunk) flush();
  }
  void put(std::string_view s) {
    if (s.empty()) return;
    char* p = reserve(s.size());
    std::memcpy(p, s.data(), s.size());
    commit(p + s.size());
  }
  /// Hands on what is held; call it at the end.
  void flush() {
    if (used_ > 0) write_(std::string_view(buf_.data(), used_));
    used_ = 0;
  }

 private:
  static constexpr size_t kChunk = size_t{1} << 16;
  const std::function<void(std::string_view)>& write_;
  std::vector<char> buf_;
  size_t used_ = 0;
};

}  // namespace etkit::inspect::detail
