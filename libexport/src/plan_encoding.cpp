#include "plan_encoding.h"

namespace etkit::exporter::detail {

std::vector<uint8_t> contiguous_dim_order(size_t rank) {
  std::vector<uint8_t> d(rank);
  for (size_t i = 0; i < rank; ++i) d[i] = static_cast<uint8_t>(i);
  return d;
}

std::string encoded_inputs(size_t n) {
  std::string s = "T2#" + std::to_string(n) + "#0(T" + std::to_string(n);
  for (size_t i = 0; i < n; ++i) s += "#1";
  s += "(";
  for (size_t i = 0; i < n; ++i) s += i == 0 ? "$" : ",$";
  return s + "),D0())";
}

std::string encoded_outputs(size_t n) {
  if (n == 1) return "$";
  std::string s = "T" + std::to_string(n);
  for (size_t i = 0; i < n; ++i) s += "#1";
  s += "(";
  for (size_t i = 0; i < n; ++i) s += i == 0 ? "$" : ",$";
  return s + ")";
}

std::pair<std::string, std::string> split_operator(std::string_view full) {
  const size_t ns = full.find("::");
  const size_t dot = full.find('.', ns == std::string_view::npos ? 0 : ns + 2);
  if (dot == std::string_view::npos) return {std::string(full), std::string()};
  return {std::string(full.substr(0, dot)), std::string(full.substr(dot + 1))};
}

}  // namespace etkit::exporter::detail
