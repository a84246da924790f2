#pragma once

// What every reader of etkit's JSON formats (debug maps, ETRecord maps, model descriptions)
// refuses before it parses: nesting deeper than any of these formats uses. JSON arrives from
// anywhere (hand-written, generated, fuzzed); a document of a million nested arrays would
// otherwise cost seconds and hundreds of megabytes in the parser before failing on its shape.

#include <cstddef>
#include <optional>
#include <string_view>

namespace etkit::debugmap {

/// The deepest nesting of objects and arrays an etkit JSON document may have. The formats need
/// fewer than ten levels; nested value lists of a model description need one per tensor
/// dimension (at most 16).
inline constexpr size_t kMaxJsonDepth = 64;

/// The byte offset at which `text` first opens an object or array deeper than `max_depth`, or
/// nothing. One pass, no allocation; brackets inside strings do not count. Text that is not
/// JSON is left to the parser.
std::optional<size_t> json_too_deep(std::string_view text, size_t max_depth = kMaxJsonDepth);

}  // namespace etkit::debugmap
