#pragma once

// A joined trace: the profile events of one ETDump with their block, method, iteration, operator
// and nesting resolved, and their durations in nanoseconds. Every etdump-inspect subcommand works
// on this model (see DESIGN.md section 5).
//
// Blocks are named by their writer (etkit/runtime/block_name.h, `parse_block_name`):
//   - etkit: `<method>` for an execution and `<method>:load` for loading;
//   - ExecuTorch: `Execute` and `Default` (loading). Its dumps do not name the method, so their
//     events belong to method `Execute`, and `Default` is that method's load block.
// Execution blocks of a method are numbered 0, 1, ... in file order (their iteration); a load
// block has iteration 0 and `load` set. Warm-up executions (listed in etkit's metadata,
// `warmup_blocks`) are numbered apart, 0, 1, ... among the method's warm-up blocks, so that
// iteration 0 is the first measured execution whether or not the run warmed up.
//
// Truncation: when the writer dropped events, the block open at the first drop and every later
// one (`incomplete_from`) are flagged `incomplete`; statistics leave them out
// (event_selection.h) and `trace_warnings` says so.
//
// Time: ticks are converted with the dump's `ticks_per_second` (etkit's metadata block) when
// present, otherwise taken as nanoseconds, as ExecuTorch's Inspector assumes. A 32-bit counter
// that wrapped (end < start, both below 2^32) is unwrapped as the Inspector does.
//
// Nesting: an event nests in another profile event of the same block whose interval contains
// its own; its parent is the innermost such event (on equal intervals, the one that ended later
// in the file, since nested events are written first). Self time is the duration minus the
// durations of the direct children.
//
// Reading a dump into this model: trace_reader.h (`load_trace`, `TraceReader`); naming its
// operators from a program or debug map: operator_naming.h; choosing events: event_selection.h.
//
// Operators: without a program, the operator of an instruction is taken from a
// `native_call_<op>` event of the same block, chain and instruction (`<op>` is e.g.
// `addmm.out`); every event of that instruction gets it. `DELEGATE_CALL` events and delegate
// events (named by their delegate debug id) get operator `delegate`.
//
// Device events: delegate events whose id is `prof:<device>:<event>`
// (etkit/devtools/profiler_event_name.h) are a profiler backend's
// (trace-run --profiler; formats/README.md). They measure device time, which overlaps the host
// events of their instruction, so they take no part in the nesting (no parent, no children,
// self time = duration) and are flagged `device`; statistics keep them apart from host time.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/inspect/etdump.h"
#include "etkit/inspect/string_table.h"
#include "etkit/inspect/time_unit.h"

namespace etkit::inspect {

/// One run block of the dump.
struct TraceBlock {
  std::string name;    ///< As written, e.g. `forward`, `forward:load`, `Execute`, `Default`.
  std::string method;  ///< The method it belongs to (see the file comment).
  bool load = false;   ///< A `load_method` block.
  /// Index among the method's execution blocks (warm-up blocks among the warm-up ones); 0 for
  /// load blocks.
  uint32_t iteration = 0;
  bool warmup = false;      ///< A warm-up execution (etkit's `warmup_blocks` metadata).
  bool incomplete = false;  ///< May miss events: the writer dropped events in or before it.
  size_t first_event = 0;  ///< Its events are `Trace::events[first_event, first_event + num_events)`.
  size_t num_events = 0;
};

/// One profile event, joined: a fixed-size record (no string of its own; 120 bytes).
struct TraceEvent {
  std::string_view name;         ///< The event's name; for a delegate event its delegate debug id.
  std::string_view op;           ///< Operator (see the file comment); empty for framework events.
  std::string_view delegate_id;  ///< The delegate debug id as text (int or string); empty if none.
  /// The delegate's metadata bytes (`delegate_debug_metadata`, interned); empty if none.
  std::string_view metadata;
  double start_ns = 0;           ///< Start relative to the first start in the dump.
  double duration_ns = 0;
  double self_ns = 0;            ///< Duration minus the direct children's durations.
  uint32_t block = 0;            ///< Index into `Trace::blocks`.
  uint32_t index = 0;            ///< Index of the event among the block's events (all kinds).
  int32_t chain = -1;            ///< Chain index; -1 outside an instruction.
  int32_t instruction = -1;      ///< Instruction index; -1 outside an instruction.
  int32_t parent = -1;  ///< Index into `Trace::events` of the enclosing event, -1 for none.
  uint32_t depth = 0;   ///< Number of enclosing events.
  bool delegate = false;  ///< A delegate's own event (it has a delegate debug id).
  bool device = false;    ///< A profiler device event (`prof:<device>:...`; see the file comment).
};

/// The device of a device event: `<device>` of its name `prof:<device>:<event>`; empty for other
/// events.
std::string_view event_device(const TraceEvent& e);

/// One logged value (a debug event), joined. A TensorList gives one `TraceValue` per tensor.
/// Its strings are views into the trace's `StringTable`, as an event's are: joining a value
/// copies no string.
struct TraceValue {
  uint32_t block = 0;        ///< Index into `Trace::blocks`.
  uint32_t index = 0;        ///< Position among the block's logged values (0, 1, ...).
  uint32_t list_index = 0;   ///< Position in its TensorList (0 otherwise).
  int32_t instruction = -1;  ///< Instruction that logged it; -1 for program outputs.
  std::string_view op;           ///< Operator of that instruction (as for events); may be empty.
  std::string_view delegate_id;  ///< Delegate debug id as text; empty if none.
  std::string_view name;  ///< The debug event's name (ExecuTorch's writer never sets one).
  bool is_output = false;    ///< A program output rather than an intermediate.
  LoggedValue::Kind kind = LoggedValue::Kind::Null;
  TensorMeta tensor;         ///< Kind::Tensor and Kind::TensorList.
  double scalar = 0;         ///< Kind::Int, Bool, Float, Double as a double.
};

/// A whole dump, joined. Owns its data (its strings through `strings`).
struct Trace {
  std::string path;  ///< As given to `load_trace`, for messages and reports.
  /// Ticks per second used for conversion (1e9 when the dump does not record it).
  double ticks_per_second = 1e9;
  bool ticks_recorded = false;  ///< The dump recorded its tick rate.
  /// etkit's metadata (`key=value` pairs of the `etkit:metadata` block); empty for dumps of
  /// other writers.
  std::map<std::string, std::string> metadata;
  uint64_t dropped_events = 0;    ///< Events the writer could not record (metadata).
  uint64_t dropped_payloads = 0;  ///< Tensor payloads the writer could not keep (metadata).
  bool interrupted = false;       ///< The run was stopped early by a signal (metadata).
  /// How far the TSC clock parted from the system clock over the run, as a fraction (metadata
  /// `clock_drift`); 0 when the writer saw no drift beyond its limit or did not check.
  double clock_drift = 0;
  std::vector<TraceBlock> blocks;
  /// Profile events grouped by block (in block order), each block's in start order (ties: the
  /// enclosing event first).
  std::vector<TraceEvent> events;
  /// Logged values in block order, each block's in file order.
  std::vector<TraceValue> values;
  /// Where the strings of events and values live.
  std::shared_ptr<StringTable> strings = std::make_shared<StringTable>();
};

/// The kind of a block as reports print it: "load", "warmup" or "execute".
std::string_view block_kind(const TraceBlock& block);

/// One line per problem of the dump that a reader of any report should know, without the path
/// (the tool adds it): events dropped (with the count and which blocks may be incomplete and
/// are left out of statistics), tensor payloads dropped, a clock that drifted
/// (`clock_drift_warning`). Empty for a whole dump.
std::vector<std::string> trace_warnings(const Trace& trace);

/// The sentence for a TSC clock that ran `drift` (a fraction, as metadata `clock_drift`) off
/// the system clock: "the TSC clock ran 1.23% off the system clock during the run (...)". Both
/// trace-run, at the end of the run, and `trace_warnings`, over the saved dump, say it.
std::string clock_drift_warning(double drift);

/// Joins `dump` (read from `path`, used only in messages). Errors: `InvalidData` ("PATH: run 2
/// event 5: end time 10 is before start time 20") for an event that ends before it starts and
/// cannot be a wrapped 32-bit counter, and for a `ticks_per_second` that is not a positive
/// integer.
Result<Trace> build_trace(const ETDump& dump, const std::string& path);
/// The same, freeing each block's events of `dump` once joined; `dump` is left with its blocks
/// emptied of events.
Result<Trace> build_trace(ETDump&& dump, const std::string& path);

}  // namespace etkit::inspect
