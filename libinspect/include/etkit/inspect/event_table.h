#pragma once

// The event listing of `etdump-inspect show`: one row per selected profile event of a trace.
//
// Columns (field names): block, method, kind ("load" or "execute"), iteration (empty for a load
// block), name,
// op, instruction (empty outside an instruction), delegate (delegate debug id, empty if none),
// depth (number of enclosing events), start (from the first event of the dump), duration, self.
// Rows follow `Trace::events`: blocks in file order, events by start time.
//
// When the trace has logged values, a column `values` after `delegate` (and the map's columns)
// joins each event to the values logged at its place, as ExecuTorch's Inspector joins debug
// events to profile events: a delegate event gets the values its delegate logged under the same
// identifier in the same instruction; an instruction's own event (OPERATOR_CALL, DELEGATE_CALL,
// ...) the values that instruction logged without an identifier. The cell lists their indices
// in the block, as `etdump-inspect values` numbers them ("0,1"); it is empty when nothing was
// logged there, e.g. for the delegate steps a trace-run filter left out.

#include <cstddef>
#include <functional>
#include <string_view>
#include <span>
#include <string>
#include <vector>

#include "etkit/inspect/delegate_metadata.h"
#include "etkit/inspect/report_stream.h"
#include "etkit/inspect/table.h"
#include "etkit/inspect/debug_map.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/inspect/trace.h"

namespace etkit::inspect {

/// The rows of `selected` (indices into `trace.events`), times in `unit`, titled
/// "events of PATH".
Table event_table(const Trace& trace, const std::vector<size_t>& selected, TimeUnit unit);

/// The same joined through `map` (when not null), with two more columns after `delegate`:
/// `handles` (the debug handles the event stands for, `event_debug_handles`, as "1,2") and `ops`
/// (the names of the map's nodes for those handles, as "fc1,relu1"; a handle the map has no node
/// for shows as its number). Both are empty when the map names nothing for the event. When the
/// map records instruction arguments (version 2), a column `shapes` follows `ops`: the tensors
/// of the event's instruction (`instruction_shapes_text`).
Table event_table(const Trace& trace, const std::vector<size_t>& selected, TimeUnit unit,
                  const DebugMap* map);

/// The same with, when `layout` is not null, one more column per column of the layout at the
/// end, decoding each event's metadata bytes (`decode_metadata`; empty for events without
/// metadata).
Table event_table(const Trace& trace, const std::vector<size_t>& selected, TimeUnit unit,
                  const DebugMap* map, const MetadataLayout* layout);

/// Writes the table `event_table` makes of the events `selection` selects in the dump `reader`
/// reads, rendered as `render` renders it (byte for byte), without holding the joined trace:
/// blocks are joined one at a time (twice for aligned text: `render_streamed_refs`) and their rows
/// handed on. `layout` as for `event_table`; no debug map. `write` receives the text in pieces.
/// Errors: those of `EventSelector::make`, before anything is written.
Error write_event_table(TraceReader& reader, const EventSelection& selection, TimeUnit unit,
                        Format format, const RenderOptions& options, const MetadataLayout* layout,
                        const std::function<void(std::string_view)>& write);

/// The same as the next table of `report` (`ReportStream::table`), so that the tables of several
/// dumps make one report: one JSON document, whose end `report.finish()` writes.
Error write_event_table(TraceReader& reader, const EventSelection& selection, TimeUnit unit,
                        const MetadataLayout* layout, ReportStream& report);

/// The tensors of the instruction `e` belongs to in the method of `map` that block method
/// `method` stands for ("float32[1, 4], float32[4, 8] -> float32[1, 8]", `call_shapes_text`);
/// empty for a delegate's own events, events outside an instruction, and entries without
/// arguments.
std::string instruction_shapes_text(const DebugMap& map, const std::string& method,
                                    const TraceEvent& e);

/// Whether `e` is the event of an instruction itself (OPERATOR_CALL, DELEGATE_CALL, MOVE_CALL,
/// JF_CALL, FREE_CALL), not a delegate's or a kernel's event inside it.
bool is_instruction_event(const TraceEvent& e);

/// "1,2" for handles {1, 2}; "" for none.
std::string handles_text(std::span<const uint32_t> handles);
/// The handles as a list cell (text "1,2", a JSON array); empty (null) for none.
Cell handles_cell(std::span<const uint32_t> handles);
/// A tensor's sizes as a list cell (text "[1, 8]" as `shape_text`, a JSON array).
Cell shape_cell(std::span<const int64_t> sizes);
/// The node names of `handles` in the method of `map` that block method `method` stands for,
/// joined by ","; a handle without a node shows as its number.
std::string node_names_text(const DebugMap& map, const std::string& method,
                            std::span<const uint32_t> handles);

}  // namespace etkit::inspect
