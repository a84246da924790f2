#pragma once

// Files written by tools go to a temporary name beside the target and are renamed into place,
// so an interrupted run never leaves a half-written file under the real name.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "etkit/runtime/error.h"
#include "etkit/host/file_util.h"

namespace etkit::tools {

using etkit::write_file_atomic;  // from etkit/host/file_util.h

/// Writes `text` to `path`, or to stdout if `path` is "-" (the tools' -o/--output convention).
/// Errors: `AccessFailed` naming the file, or stdout when it takes less than all of `text`.
Error write_output(const std::string& path, std::string_view text);

/// Creates directory `path` if it does not exist (not its parents). Errors: `AccessFailed`.
Error ensure_directory(const std::string& path);

}  // namespace etkit::tools
