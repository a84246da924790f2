#include "etkit/debugmap/json_path.h"

#include <algorithm>
#include <cstdio>

namespace etkit::debugmap {

bool is_plain_key(std::string_view key) {
  if (key.empty()) return false;
  const auto alpha = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!alpha(key[0])) return false;
  return std::all_of(key.begin(), key.end(),
                     [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

std::string json_quoted(std::string_view key) {
  std::string out = "\"";
  for (char c : key) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string key_path(std::string_view parent, std::string_view key, bool always_quote) {
  std::string k = (!always_quote && is_plain_key(key)) ? std::string(key) : json_quoted(key);
  if (parent.empty()) return k;
  std::string out(parent);
  out += '.';
  return out + k;
}

std::string index_path(std::string_view parent, size_t i) {
  std::string out(parent);
  return out + "[" + std::to_string(i) + "]";
}

}  // namespace etkit::debugmap
