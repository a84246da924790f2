#include "etkit/host/shape_text.h"

namespace etkit {
namespace {

template <typename T>
std::string shape_text_of(std::span<const T> sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(sizes[i]);
  }
  return out + "]";
}

}  // namespace

std::string shape_text(std::span<const int64_t> sizes) { return shape_text_of(sizes); }
std::string shape_text(std::span<const int32_t> sizes) { return shape_text_of(sizes); }

}  // namespace etkit
