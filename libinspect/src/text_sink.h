#pragma once

// Private to libinspect: text that streamed writers build in place and hand to the caller's
// writer in pieces of about 64 KiB, without a string per line.

#include <cstddef>
#include <cstring>
#include <functional>
#include <string_view>
#include <vector>

namespace etkit::inspect::detail {

/// Copies `s` to `p`, which has room for it, and returns the end: for writers that fill a
/// `TextSink::reserve`d region by hand.
inline char* put_chars(char* p, std::string_view s) {
  if (!s.empty()) std::memcpy(p, s.data(), s.size());  // an empty view may have no data
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
