#pragma once

// Writing files so that a crash never leaves a half file under the real name (host code).

#include <cstdint>
#include <span>
#include <string>

#include "etkit/runtime/error.h"

namespace etkit {

/// Writes `bytes` to "PATH.tmp-PID" and renames it to `path`. Errors: `AccessFailed` naming the
/// path and the reason (the temporary file is removed).
Error write_file_atomic(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace etkit
