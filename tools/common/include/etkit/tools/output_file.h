#pragma once

// Files written by tools go to a temporary name beside the target and are renamed into place,
// so an interrupted run never leaves a half-written file under the real name.

#include <cstdint>
#include <span>
#include <string>

#include "etkit/runtime/error.h"
#include "etkit/host/file_util.h"

namespace etkit::tools {

using etkit::write_file_atomic;  // from etkit/host/file_util.h

/// Creates directory `path` if it does not exist (not its parents). Errors: `AccessFailed`.
Error ensure_directory(const std::string& path);

}  // namespace etkit::tools
