#pragma once

// Which method of a program a tool means, written once: the method asked for; else `forward`;
// else the program's only method. A dump's block names a method (block_name.h), except
// ExecuTorch's `Execute`, which stands for the method chosen the same way. trace-run (which
// method to run) and libinspect (which method of a program or debug map a dump's block
// belongs to) both choose here.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "etkit/runtime/program.h"
#include "etkit/runtime/result.h"

namespace etkit {

/// The method chosen when none is asked for.
inline constexpr std::string_view kDefaultMethodName = "forward";

/// Index into `names` of the method chosen when none is asked for: `forward`, else the only
/// one; empty when neither exists.
std::optional<size_t> default_method(std::span<const std::string_view> names);

/// Index into `names` of the method a dump block's method `block_method` stands for: the method
/// of that name; for ExecuTorch's `Execute` (which names none) when absent, `default_method`.
/// Empty when there is none.
std::optional<size_t> method_for_block(std::span<const std::string_view> names,
                                       std::string_view block_method);

/// The method of `program` to run: `requested` when given (errors: those of
/// `Program::method_meta`, after "PATH: "), else `default_method`. Errors: `InvalidArgument`
/// ("PATH: no method 'forward'; choose one with --method: a, b, c, d, ... (9 in all; see
/// --list)") when neither `forward` nor a single method exists. `path` names the program.
Result<std::string> choose_method(const Program& program, std::string_view requested,
                                  const std::string& path);

}  // namespace etkit
