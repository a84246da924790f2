#pragma once

// The event listing of `etdump-inspect show`: one row per selected profile event of a trace.
//
// Columns (field names): block, method, kind ("load" or "execute"), iteration (empty for a load
// block), name,
// op, instruction (empty outside an instruction), delegate (delegate debug id, empty if none),
// depth (number of enclosing events), start (from the first event of the dump), duration, self.
// Rows follow `Trace::events`: blocks in file order, events by start time.

#include <cstddef>
#include <vector>

#include "etkit/inspect/table.h"
#include "etkit/inspect/trace.h"

namespace etkit::inspect {

/// The rows of `selected` (indices into `trace.events`), times in `unit`, titled
/// "events of PATH".
Table event_table(const Trace& trace, const std::vector<size_t>& selected, TimeUnit unit);

/// Decimals shown for times in `unit`: 0 for ns, 3 for us, 6 for ms, 9 for s (nanosecond
/// resolution).
int time_decimals(TimeUnit unit);

}  // namespace etkit::inspect
