#pragma once

// Diagnostics and exit codes shared by every etkit tool.
//
//   tool: error: FILE: what is wrong        (stderr, lower case, once per cause)
//   tool: warning: ...
//
// Exit codes, one scheme for every tool (each man page's EXIT STATUS says the same):
//   0    success
//   1    a verdict failed (diff regression, compare past tolerance, bundled case mismatch)
//   2    usage error or a path problem (bad flag or value, unknown method or block, a file that
//        cannot be read or written, a directory)
//   3    invalid input or a failed run (corrupt or unsupported file, missing operator or
//        backend, load, run or export failure, inputs that do not belong together)
//   4    an incomplete verdict (a comparison that matched nothing or left values unmatched)
//   130  interrupted (SIGINT or SIGTERM)

#include <string_view>

#include "etkit/runtime/error.h"

namespace etkit::tools {

inline constexpr int kExitOk = 0;
/// A verdict failed: a regression, a value past tolerance, a bundled case that mismatches.
inline constexpr int kExitFailure = 1;
/// A usage error or a path problem.
inline constexpr int kExitUsage = 2;
/// Invalid input or a failed run.
inline constexpr int kExitInvalidInput = 3;
/// A verdict that could not be reached on everything: nothing matched, or values unmatched.
inline constexpr int kExitIncomplete = 4;
/// Interrupted by SIGINT or SIGTERM (128 + SIGINT, as shells report it).
inline constexpr int kExitInterrupted = 130;

/// Prints "TOOL: error: MESSAGE" on stderr.
void print_error(std::string_view tool, std::string_view message);
/// Prints "TOOL: warning: MESSAGE" on stderr.
void print_warning(std::string_view tool, std::string_view message);

/// The exit code for a library error, by its code: `kExitUsage` for what the user named and
/// etkit could not find or open (`AccessFailed`: a file that cannot be read or written, or is a
/// directory; `NotFound`: a method, block or name that does not exist), `kExitInvalidInput` for
/// everything else (corrupt, unsupported or mismatched inputs, failed loads, runs and exports).
/// A flag's value that does not parse is a usage error too, but only the tool knows an error
/// came from a flag: it reports those with `report_usage`. `kExitOk` for success.
int exit_code_for(ErrorCode code);
/// `exit_code_for(error.code())`.
int exit_code_for(const Error& error);

/// Prints `error` and returns its exit code (`exit_code_for`).
int report(std::string_view tool, const Error& error);
/// Prints `error`, a bad value on the command line, and returns `kExitUsage`.
int report_usage(std::string_view tool, const Error& error);

}  // namespace etkit::tools
