#pragma once

// A joined trace: the profile events of one ETDump with their block, method, iteration, operator
// and nesting resolved, and their durations in nanoseconds. Every etdump-inspect subcommand works
// on this model (see DESIGN.md section 5).
//
// Blocks are named by their writer:
//   - etkit: `<method>` for an execution and `<method>:load` for loading;
//   - ExecuTorch: `Execute` and `Default` (loading). Its dumps do not name the method, so their
//     events belong to method `Execute`, and `Default` is that method's load block.
// Execution blocks of a method are numbered 0, 1, ... in file order (their iteration); a load
// block has iteration 0 and `load` set.
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
// Operators: without a program, the operator of an instruction is taken from a
// `native_call_<op>` event of the same block, chain and instruction (`<op>` is e.g.
// `addmm.out`); every event of that instruction gets it. `DELEGATE_CALL` events and delegate
// events (named by their delegate debug id) get operator `delegate`.
//
// Device events: delegate events whose id is `prof:<device>:<event>` are a profiler backend's
// (trace-run --profiler; formats/README.md). They measure device time, which overlaps the host
// events of their instruction, so they take no part in the nesting (no parent, no children,
// self time = duration) and are flagged `device`; statistics keep them apart from host time.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "etkit/runtime/program.h"
#include "etkit/runtime/result.h"
#include "etkit/inspect/debug_map.h"
#include "etkit/inspect/etdump.h"

namespace re2 {
class RE2;
}

namespace etkit::inspect {

/// A display unit for durations.
enum class TimeUnit { Ns, Us, Ms, S };

/// "ns", "us", "ms" or "s".
const char* time_unit_name(TimeUnit unit);
/// Parses "ns", "us", "ms" or "s". Errors: `InvalidArgument` naming the accepted units.
Result<TimeUnit> parse_time_unit(std::string_view text);
/// `ns` nanoseconds expressed in `unit`.
double from_ns(double ns, TimeUnit unit);

/// One run block of the dump.
struct TraceBlock {
  std::string name;    ///< As written, e.g. `forward`, `forward:load`, `Execute`, `Default`.
  std::string method;  ///< The method it belongs to (see the file comment).
  bool load = false;   ///< A `load_method` block.
  uint32_t iteration = 0;  ///< Index among the method's execution blocks; 0 for load blocks.
  size_t first_event = 0;  ///< Its events are `Trace::events[first_event, first_event + num_events)`.
  size_t num_events = 0;
};

/// The strings of a trace (event names, operators, delegate ids), each stored once: the
/// `std::string_view`s of `TraceEvent` point into it. Shared by copies of a `Trace`, and never
/// shrinks, so a view stays valid as long as some copy of its trace lives.
class StringTable {
 public:
  /// The stored copy of `s` (added on first use).
  std::string_view intern(std::string_view s);
  /// Number of distinct strings.
  size_t size() const { return index_.size(); }

 private:
  std::deque<std::string> storage_;  // a deque: adding never moves the stored strings
  std::unordered_set<std::string_view> index_;
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
struct TraceValue {
  uint32_t block = 0;        ///< Index into `Trace::blocks`.
  uint32_t index = 0;        ///< Position among the block's logged values (0, 1, ...).
  uint32_t list_index = 0;   ///< Position in its TensorList (0 otherwise).
  int32_t instruction = -1;  ///< Instruction that logged it; -1 for program outputs.
  std::string op;            ///< Operator of that instruction (as for events); may be empty.
  std::string delegate_id;   ///< Delegate debug id as text; empty if none.
  std::string name;          ///< The debug event's name (ExecuTorch's writer never sets one).
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
  std::vector<TraceBlock> blocks;
  /// Profile events grouped by block (in block order), each block's in start order (ties: the
  /// enclosing event first).
  std::vector<TraceEvent> events;
  /// Logged values in block order, each block's in file order.
  std::vector<TraceValue> values;
  /// Where the events' strings live.
  std::shared_ptr<StringTable> strings = std::make_shared<StringTable>();
};

/// Joins `dump` (read from `path`, used only in messages). Errors: `InvalidData` ("PATH: run 2
/// event 5: end time 10 is before start time 20") for an event that ends before it starts and
/// cannot be a wrapped 32-bit counter, and for a `ticks_per_second` that is not a positive
/// integer.
Result<Trace> build_trace(const ETDump& dump, const std::string& path);
/// The same, freeing each block's events of `dump` once joined; `dump` is left with its blocks
/// emptied of events.
Result<Trace> build_trace(ETDump&& dump, const std::string& path);

/// A dump opened for joining straight from its verified flatbuffer, block by block, without the
/// owning `ETDump` model: what `load_trace` uses, and what `etdump-inspect stats` uses to
/// aggregate one block at a time (see DESIGN.md section 5). `open` maps the file, verifies the
/// flatbuffer and checks every event (the checks of `read_etdump` and `build_trace`), so joining
/// cannot fail afterwards.
class TraceReader {
 public:
  /// Opens the dump at `path`. Errors: those of `read_etdump_file` and `build_trace`, each
  /// message starting with "PATH: ".
  static Result<TraceReader> open(const std::string& path);
  /// Opens a dump held in memory (e.g. read from stdin); `path` names it in messages.
  static Result<TraceReader> from_bytes(std::vector<uint8_t> bytes, const std::string& path);
  /// The same without a copy: `bytes` must outlive the reader.
  static Result<TraceReader> over(std::span<const uint8_t> bytes, const std::string& path);

  TraceReader(TraceReader&&) noexcept;
  TraceReader& operator=(TraceReader&&) noexcept;
  ~TraceReader();

  /// A trace with every block (name, method, load flag, iteration) and no events or values: the
  /// one to pass to `join_block`.
  Trace skeleton() const;
  /// Appends the events and values of block `b` to `trace` (made by `skeleton()`, possibly with
  /// events of other blocks, or cleared of them), and sets that block's `first_event` and
  /// `num_events`. Indices (`parent`) are into `trace.events` as it then is.
  void join_block(size_t b, Trace& trace);
  /// Every block joined into one trace.
  Trace join_all();

 private:
  struct Impl;
  explicit TraceReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Reads the dump at `path` and joins it (`TraceReader::open`, then `join_all`). Errors are those
/// of `read_etdump_file` and `build_trace`.
Result<Trace> load_trace(const std::string& path);

/// Names the operator of every event and value inside an instruction from `program`
/// (`MethodMeta::instruction_name`: "aten::add.out", "delegate XnnpackBackend", "move", ...),
/// replacing the names taken from `native_call_` events. A block's method is looked up by name;
/// ExecuTorch's `Execute` stands for `forward`, or for the program's only method. Only chain 0 is
/// mapped (exported programs have one chain). Errors: `NotFound` ("PATH: method 'x' is not in
/// the program (methods: ...)"), `InvalidData` for an instruction the method does not have
/// (the dump was not made with this program).
Error name_operators(Trace& trace, const Program& program);

/// The method of `map` that block method `method` stands for: itself, or for ExecuTorch's
/// `Execute`, `forward` or the map's only method. Errors: `NotFound` ("PATH: method 'x' is not in
/// the debug map (methods: ...)").
Result<const MethodDebugMap*> debug_map_method(const DebugMap& map, const std::string& method,
                                               const std::string& path);

/// Names operators from a debug map instead of a program (it takes precedence over one): the
/// operator of a kernel instruction as the map gives it (kept when the map's is empty),
/// "delegate BACKEND" for a delegate call, the kind ("move", ...) otherwise. Instructions the map
/// does not list keep their names; delegate events keep operator "delegate". Errors: those of
/// `debug_map_method`.
Error name_operators(Trace& trace, const DebugMap& map);

/// The debug handles event `e` of `trace` stands for, through `map`: for a delegate event, those
/// of its delegate debug id in the map's entry for its DelegateCall, looked up exactly (the id as
/// logged, then its other form: "3" as integer 3, never by substring); for another event inside
/// an instruction, the instruction's handles. Empty when the map names none (unknown method,
/// instruction or identifier). The span is valid while `map` is unchanged.
std::span<const uint32_t> event_debug_handles(const Trace& trace, const TraceEvent& e,
                                              const DebugMap& map);

/// `name_operators` for a trace joined block by block: keeps the program's instruction names
/// between calls. `program` (or `map`) must outlive it.
class OperatorNamer {
 public:
  explicit OperatorNamer(const Program& program) : program_(&program) {}
  explicit OperatorNamer(const DebugMap& map) : map_(&map) {}
  /// Both, either may be null: the program names first, then the map (it takes precedence).
  OperatorNamer(const Program* program, const DebugMap* map) : program_(program), map_(map) {}
  /// Names the operators of every event and value of `trace` (errors as `name_operators`).
  Error apply(Trace& trace);

 private:
  Error apply_program(Trace& trace);
  Error apply_map(Trace& trace);

  const Program* program_ = nullptr;
  const DebugMap* map_ = nullptr;
  std::map<std::string, std::vector<std::string>> names_;  // block method -> instruction names
};

/// Which events a subcommand looks at. Empty members select everything.
struct EventSelection {
  std::string method;      ///< Only blocks of this method.
  int64_t block = -1;      ///< Only this block (index into `Trace::blocks`), -1 = all.
  std::string name_regex;  ///< Only events whose name fully matches (RE2 syntax).
  bool include_load = true;  ///< Include load blocks.
};

/// Indices into `trace.events` of the selected events, in `trace.events` order. Errors:
/// `InvalidArgument` for a regex that does not compile ("bad --name regex '(': ...").
Result<std::vector<size_t>> select_events(const Trace& trace, const EventSelection& selection);

/// An `EventSelection` compiled once, to select block by block (its regex is matched once per
/// distinct name of a trace).
class EventSelector {
 public:
  /// Errors: those of `select_events`.
  static Result<EventSelector> make(const EventSelection& selection);
  /// Whether block `b` of `trace` is selected at all (method, block, load flag).
  bool block_selected(const Trace& trace, size_t b) const;
  /// Appends the indices of the selected events of block `b` to `out`.
  void select_block(const Trace& trace, size_t b, std::vector<size_t>& out);

 private:
  EventSelection selection_;
  std::shared_ptr<const re2::RE2> regex_;
  // Match results by name (address and length), for the string table they belong to (held, so
  // that its addresses are not reused while cached).
  struct NameHash {
    size_t operator()(const std::pair<const char*, size_t>& k) const {
      return std::hash<const char*>()(k.first) ^ (k.second * 0x9e3779b97f4a7c15ULL);
    }
  };
  std::shared_ptr<StringTable> cached_table_;
  std::unordered_map<std::pair<const char*, size_t>, bool, NameHash> matches_;
};

}  // namespace etkit::inspect
