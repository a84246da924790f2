#pragma once

// Which inputs of a method its executions may overwrite, so that a runner executing it again
// and again with the same inputs copies them into place once rather than before every
// execution (trace-run; DESIGN.md, "Runner").

#include <string_view>
#include <vector>

#include "etkit/runtime/program.h"

namespace etkit {

/// One entry per input of method `method`: true when executing it may change the input's value
/// or memory, judged from the program alone and erring towards true. An input may be written
/// when
/// - its planned memory overlaps that of any other value (the plan reuses it for a later one);
/// - it is the return slot of a kernel call (the last argument: the out tensor or a list of
///   them), directly or in a list;
/// - it is an argument of a delegate call (a delegate's inputs and outputs cannot be told
///   apart) or a move's source or destination.
/// Errors: `NotFound` for a method the program does not have.
Result<std::vector<bool>> inputs_written(const Program& program, std::string_view method);

}  // namespace etkit
