#pragma once

// JSON paths in debug-map messages (private to libinspect): `methods.forward.delegates[0].
// identifiers."3"`. Keys that are plain identifiers appear bare, others quoted as JSON strings.

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

#include "etkit/runtime/error.h"

namespace etkit::inspect::debug_map_internal {

// An Error whose message is `text` (truncated to Error's inline buffer).
inline Error make_error(ErrorCode code, const std::string& text) {
  return Error(code, "%s", text.c_str());
}

inline bool is_plain_key(std::string_view key) {
  if (key.empty()) return false;
  const auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(key[0])) return false;
  return std::all_of(key.begin(), key.end(),
                     [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

// `key` as a JSON string literal.
inline std::string json_quoted(std::string_view key) {
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

// Path segments: `.key` (quoted unless plain, or always when `always_quote`), `[i]`.
inline std::string key_path(const std::string& parent, std::string_view key,
                            bool always_quote = false) {
  std::string k = (!always_quote && is_plain_key(key)) ? std::string(key) : json_quoted(key);
  return parent.empty() ? k : parent + "." + k;
}
inline std::string index_path(const std::string& parent, size_t i) {
  return parent + "[" + std::to_string(i) + "]";
}
inline std::string method_path(const std::string& method) { return key_path("methods", method); }

}  // namespace etkit::inspect::debug_map_internal
