#include "json_compact.h"

#include <cstddef>

namespace etkit::inspect::detail {

namespace {
constexpr size_t kChunk = size_t{1} << 16;
}  // namespace

JsonCompactor::JsonCompactor(const std::function<void(std::string_view)>& write)
    : write_(write), self_([this](std::string_view text) { put(text); }) {
  out_.reserve(kChunk + kChunk / 2);
}

void JsonCompactor::put(std::string_view text) {
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    if (in_string_) {
      // Up to and including the closing quote, in one copy.
      const char* from = p;
      while (p < end) {
        const char c = *p++;
        if (escape_) {
          escape_ = false;
        } else if (c == '\\') {
          escape_ = true;
        } else if (c == '"') {
          in_string_ = false;
          break;
        }
      }
      out_.append(from, static_cast<size_t>(p - from));
    } else {
      // Tokens outside strings up to the next whitespace or string.
      const char* from = p;
      while (p < end && *p != ' ' && *p != '\n' && *p != '"' && *p != '\t' && *p != '\r') ++p;
      if (p < end && *p == '"') {
        in_string_ = true;
        ++p;
      }
      out_.append(from, static_cast<size_t>(p - from));
      while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')) ++p;
    }
    if (out_.size() >= kChunk) flush();
  }
}

void JsonCompactor::flush() {
  if (out_.empty()) return;
  write_(out_);
  out_.clear();
}

}  // namespace etkit::inspect::detail
