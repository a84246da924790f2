#pragma once

// Files written by tools go to a temporary name beside the target and are renamed into place,
// so an interrupted run never leaves a half-written file under the real name.

#include <cstdint>
#include <span>
#include <string>

#include "etkit/core/error.h"

namespace etkit::tools {

/// Writes `bytes` to `path` atomically. Errors: `AccessFailed` naming the path and the reason.
Error write_file_atomic(const std::string& path, std::span<const uint8_t> bytes);

/// Creates directory `path` if it does not exist (not its parents). Errors: `AccessFailed`.
Error ensure_directory(const std::string& path);

}  // namespace etkit::tools
