#pragma once

// Chrome trace JSON of a trace, for Perfetto UI (ui.perfetto.dev) and chrome://tracing.
//
// The object form `{"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}`, one
// event per line:
//   - one "X" (complete) event per selected profile event, `ts` and `dur` in microseconds with
//     a fractional part (nanosecond resolution), `ts` from the dump's first event;
//   - pid 1 for the dump; a track (tid) per method, numbered from 1 in order of first appearance,
//     and one per delegate call (method and instruction) for the events delegates report, so
//     that slices on a track nest;
//   - `cat`: "framework" (no operator), "operator", or "delegate"; `args`: block, kind ("load" or
//     "execute"), and when present iteration (not for load blocks), instruction, op,
//     delegate_id, and with a debug map debug_handles and ops;
//   - profiler events (delegate events with id `prof:<device>:<event>`, formats/README.md) on a
//     track of their own per method and device ("forward: device sim"), `cat` "device", with
//     `args.device`; and a flow arrow ("s"/"f" events named "issue", `cat` "flow", ids from 1)
//     from the instruction event (OPERATOR_CALL, DELEGATE_CALL, ...) that issued each one, when
//     that event is selected too;
//   - "M" metadata events naming the process (the dump's path) and each thread, with sort
//     indices in track order.
// `otherData` holds `source` (the path) and `ticks_per_second` (null when the dump does not
// record it).

#include <cstddef>
#include <functional>
#include <string_view>
#include <string>
#include <vector>

#include "etkit/inspect/debug_map.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/inspect/trace.h"

namespace etkit::inspect {

/// The Chrome trace JSON of the `selected` events of `trace` (indices into `trace.events`),
/// ending with a newline.
std::string chrome_trace_json(const Trace& trace, const std::vector<size_t>& selected);

/// The same joined through `map` (when not null): an event that stands for debug handles
/// (`event_debug_handles`) has `args.debug_handles` (a list of integers) and `args.ops` (the
/// map's node names for them, as `show` prints them: "fc1,relu1").
std::string chrome_trace_json(const Trace& trace, const std::vector<size_t>& selected,
                              const DebugMap* map);

/// Writes `chrome_trace_json` of the events `selection` selects in the dump `reader` reads (no
/// map), byte for byte, without holding the joined trace: blocks are joined one at a time, in
/// two passes (the first finds the tracks, which are named before the events, and the flow
/// arrows, which follow them; only those are kept). `write` receives the text in pieces.
/// Errors: those of `EventSelector::make`.
Error write_chrome_trace(TraceReader& reader, const EventSelection& selection,
                         const std::function<void(std::string_view)>& write);

}  // namespace etkit::inspect
