#pragma once

// The command line every etkit tool shares: `--version`, `--help`, and one style of message for
// what CLI11 rejects, printed by `parse_command_line`:
//
//   etdump-inspect diff: error: unknown option '--jobs' (see 'etdump-inspect diff --help')
//   trace-run: error: --iterations: 'abc' is not an integer
//   etdump-inspect diff: error: --threshold must be >= 0
//   etdump-inspect diff: error: expected 2 arguments for 'dumps', got 3
//   debugmap-build: error: unexpected argument 'x.json'
//
// The program name of a message is the tool, and the subcommand when there is one. Range checks
// (`at_least`, `in_range`) say the range in words. Tool code only; CLI11 stays out of the
// libraries.

#include <CLI/CLI.hpp>

#include <optional>
#include <string_view>

namespace etkit::tools {

/// etkit's version (CMake's project version), e.g. "0.1.0".
std::string_view etkit_version();

/// Adds `--version` to `app`: prints "TOOL (etkit) VERSION" and exits 0.
void add_version_flag(CLI::App& app);

/// Parses the command line into `app` (and its subcommands). Returns nothing when the tool
/// should go on, else the exit code to return: `kExitOk` after `--help` or `--version` (printed
/// on stdout), `kExitUsage` after a usage error (printed as above). Options that a (sub)command
/// does not have are found before CLI11 counts positional arguments, so `diff A B --jobs 3`
/// names `--jobs`, with the closest option when one is close ("did you mean '--top'?").
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);

/// A check that a number is at least `min` ("--threshold must be >= 0"); for an integer option
/// (`integer` true), a value that is not one is "'abc' is not an integer".
CLI::Validator at_least(double min, bool integer);
/// A check that a number is in [min, max] ("--jobs must be between 1 and 256").
CLI::Validator in_range(double min, double max, bool integer);

}  // namespace etkit::tools
