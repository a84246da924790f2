#pragma once

// Checking trace-run's output filters against the program before a run: a filter that can
// have no effect is a warning, so a typo does not silently log nothing (host code).

#include <string>
#include <string_view>
#include <vector>

#include "etkit/host/trace_session.h"
#include "etkit/runtime/program.h"

namespace etkit {

/// Warnings about `options`' name filters for the methods `methods` of `program` (the ones a
/// run calls), one sentence each, in flag order:
///   - name or range filters while no values are logged (`debug_level` None): they have no
///     effect;
///   - a `keep_names` pattern that matches no operator ("aten::addmm.out", also matched as
///     "addmm.out") or delegate backend of those methods, with the closest names ("did you mean
///     'addmm.out'?") when some are close.
/// A pattern that does not compile gives no warning here (`TraceSession::create` rejects it).
/// Backends' own outputs have names the program does not hold, so in a method that calls a
/// delegate only a pattern close to one of the program's names (a likely typo) is reported.
std::vector<std::string> filter_warnings(const Program& program,
                                         const std::vector<std::string>& methods,
                                         const TraceOptions& options);

}  // namespace etkit
