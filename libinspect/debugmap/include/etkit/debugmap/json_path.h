#pragma once

// How etkit's JSON readers name a value in an error message: where it is (its JSON path) and
// what it is (its kind). One convention for every reader of etkit's JSON formats: the debug map
// (debug_map_json.h), ETRecord maps (libinspect) and model descriptions (libexport), so that
// their messages agree.
//
// A path is a dotted list of keys and bracketed indices: `methods.forward.delegates[0].
// identifiers."3"`. A key that is a plain identifier (a letter or `_`, then letters, digits or
// `_`) appears bare; any other key appears as a JSON string literal, with `"`, `\` and control
// characters escaped, so the path names exactly one key. The kind is the article and noun a
// message puts after "got": "an object", "a string", "a number with a fraction".
//
// The kind helper is a template over the JSON type so that no third-party type appears here;
// it needs only the `is_*()` members nlohmann::json has.

#include <cstddef>
#include <string>
#include <string_view>

namespace etkit::debugmap {

/// Whether `key` appears bare in a path: not empty, a letter or `_` first, then letters,
/// digits or `_`.
bool is_plain_key(std::string_view key);

/// `key` as a JSON string literal: in double quotes, with `"` and `\` escaped by a backslash
/// and control characters as `\u00XX` (lowercase hex). Other bytes are copied as they are.
std::string json_quoted(std::string_view key);

/// `parent` followed by key `key`: `parent.key`, or `parent."k y"` when the key is not plain
/// (or always quoted when `always_quote`; identifier and debug-handle keys are). With an empty
/// `parent` the path is the key alone.
std::string key_path(std::string_view parent, std::string_view key, bool always_quote = false);

/// `parent` followed by array index `i`: `parent[i]`.
std::string index_path(std::string_view parent, size_t i);

/// What `value` is, as a message names it after "got": "null", "a boolean", "a string",
/// "an array", "an object", "an integer", "a number with a fraction", or "a value of another
/// type" (nlohmann's binary and discarded values). `Json` is a JSON value type with
/// nlohmann::json's `is_*()` members.
template <typename Json>
const char* json_kind(const Json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "a boolean";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  if (value.is_number_integer()) return "an integer";  // signed or unsigned
  if (value.is_number_float()) return "a number with a fraction";
  return "a value of another type";
}

}  // namespace etkit::debugmap
