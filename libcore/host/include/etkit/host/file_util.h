#pragma once

// Writing files so that a crash never leaves a half file under the real name, and checking
// before a long run that the files it will write can be written (host code).

#include <cstdint>
#include <span>
#include <string>

#include "etkit/runtime/error.h"

namespace etkit {

/// Writes `bytes` to "PATH.tmp-PID" and renames it to `path`. Errors: `AccessFailed` naming the
/// path and the reason (the temporary file is removed).
Error write_file_atomic(const std::string& path, std::span<const uint8_t> bytes);

/// Checks that `write_file_atomic(path, ...)` can succeed, without writing: `path` is not a
/// directory and its directory exists and is writable. Errors: `AccessFailed` naming the path
/// and what is wrong ("out/run.etdump: cannot write: directory 'out' does not exist").
Error check_writable_file(const std::string& path);

/// Checks that a directory `path` can be written into, or created (its parent exists and is
/// writable). Errors: `AccessFailed` naming the path ("out: exists and is not a directory").
Error check_writable_directory(const std::string& path);

}  // namespace etkit
