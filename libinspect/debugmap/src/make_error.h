#pragma once

// Private to the debugmap library: an `Error` from a message built as a std::string.

#include <string>

#include "etkit/runtime/error.h"

namespace etkit::debugmap::detail {

// An Error whose message is `text` (truncated to Error's inline buffer).
inline Error make_error(ErrorCode code, const std::string& text) {
  return Error(code, "%s", text.c_str());
}

}  // namespace etkit::debugmap::detail
