#pragma once

// Byte sizes as users type them: "1024", "64K", "64M", "1G", "2GiB", "512MB".

#include <cstdint>
#include <string>
#include <string_view>

#include "etkit/runtime/result.h"

namespace etkit::tools {

/// Parses a size with an optional binary suffix K, M, G, T (also KB/KiB...; powers of 1024).
/// Errors: `InvalidArgument` naming the text.
Result<uint64_t> parse_size(std::string_view text);

/// Formats bytes for people: "512 B", "64.0 KiB", "1.5 GiB".
std::string format_size(uint64_t bytes);

}  // namespace etkit::tools
