#include "etkit/host/shape_text.h"

#include <charconv>

namespace etkit {
namespace {

template <typename T>
void shape_text_of(std::span<const T> sizes, std::string& out) {
  out.assign(1, '[');
  char buf[24];
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) out += ", ";
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, sizes[i]);
    out.append(buf, end);
  }
  out += ']';
}

}  // namespace

std::string shape_text(std::span<const int64_t> sizes) {
  std::string out;
  shape_text_of(sizes, out);
  return out;
}

std::string shape_text(std::span<const int32_t> sizes) {
  std::string out;
  shape_text_of(sizes, out);
  return out;
}

void shape_text(std::span<const int64_t> sizes, std::string& out) { shape_text_of(sizes, out); }

}  // namespace etkit
