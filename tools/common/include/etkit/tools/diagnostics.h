#pragma once

// Diagnostics and exit codes shared by every etkit tool.
//
//   tool: error: FILE: what is wrong        (stderr, lower case, once per cause)
//   tool: warning: ...
//
// Exit codes: 0 success, 1 failure, 2 usage error or unreadable input.

#include <string_view>

#include "etkit/runtime/error.h"

namespace etkit::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
/// Stopped by SIGINT or SIGTERM (128 + SIGINT, as shells report it); what was recorded is
/// written.
inline constexpr int kExitInterrupted = 130;

/// Prints "TOOL: error: MESSAGE" on stderr.
void print_error(std::string_view tool, std::string_view message);
/// Prints "TOOL: warning: MESSAGE" on stderr.
void print_warning(std::string_view tool, std::string_view message);

/// The exit code for a library error: 2 when the input could not be read at all (a missing or
/// unreadable file), 1 for everything else (corrupt or unsupported programs, failed runs).
int exit_code_for(const Error& error);

/// Prints `error` and returns its exit code.
int report(std::string_view tool, const Error& error);

}  // namespace etkit::tools
