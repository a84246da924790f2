#pragma once

// Counters recorded by profiler backends (trace-run --profiler perf, or a plugin's): the
// `etkit-prof/1;device=...;<counter>=<value>...` metadata of `prof:<device>:<event>` delegate
// events (formats/README.md, "Profiler events"), summed per method and event name or per
// instruction. `etdump-inspect stats` prints them as a table beside the latency statistics.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "etkit/inspect/etdump.h"
#include "etkit/inspect/table.h"
#include "etkit/inspect/trace.h"

namespace etkit::inspect {

/// One group of profiler events with counters.
struct CounterGroup {
  std::string method;
  std::string key;     ///< The event's id (`prof:perf:OPERATOR_CALL`) or the instruction index.
  std::string device;
  uint64_t count = 0;  ///< Events in the group.
  std::vector<uint64_t> totals;  ///< One per `ProfilerCounters::names`; absent values add 0.
};

/// All counters of a dump, groups sorted by method, then key (instructions numerically).
struct ProfilerCounters {
  std::vector<std::string> names;  ///< Counter names in order of first appearance.
  std::vector<CounterGroup> groups;
  bool empty() const { return groups.empty(); }
};

/// Parses one event's metadata; false when it is not profiler metadata. `counters` gets the
/// (name, value) pairs (values that are not unsigned integers are skipped).
bool parse_profiler_metadata(std::string_view metadata, std::string* device,
                             std::vector<std::pair<std::string, uint64_t>>* counters);

/// The counters of `dump`'s execution blocks, grouped by event id or, with `by_instruction`, by
/// instruction. Only events whose metadata carries at least one counter count.
ProfilerCounters profiler_counters(const ETDump& dump, bool by_instruction);

/// `profiler_counters` over a joined trace, fed block by block as `etdump-inspect stats` joins
/// it, so the dump is read once: the given events of execution blocks whose metadata is profiler
/// metadata with at least one counter (the join interns every event's metadata). Grouped as
/// `profiler_counters`, except that an event outside an instruction counts under instruction -1
/// (`TraceEvent::instruction`).
class CounterAccumulator {
 public:
  explicit CounterAccumulator(bool by_instruction) : by_instruction_(by_instruction) {}
  /// Adds the events `events` (indices into `trace.events`) that carry counters.
  void add(const Trace& trace, const std::vector<size_t>& events);
  /// The counters added so far, groups sorted as `profiler_counters` sorts them.
  ProfilerCounters finish() const;

 private:
  bool by_instruction_;
  ProfilerCounters out_;  // groups in order of first appearance
  std::map<std::tuple<std::string, int64_t, std::string>, size_t> index_;
  std::string device_;                                      // scratch
  std::vector<std::pair<std::string, uint64_t>> counters_;  // scratch
  friend ProfilerCounters profiler_counters(const ETDump& dump, bool by_instruction);
  void count(const std::string& method, int64_t instruction, std::string_view id);
};

/// Columns: method, name|instruction, device, count, then per counter `<counter>` (total) and
/// `<counter>_per_event` (mean). No unit.
Table profiler_counters_table(const ProfilerCounters& counters, bool by_instruction,
                              std::string title);

/// Appends the counters to the rows of a `stats_table` they belong to, as extra columns: per
/// counter `<counter>` (total) and `<counter>_per_event` (mean over the events that carried
/// counters; `counter_<counter>...` when the name is one of the table's columns already), empty
/// on other rows. The grouping is read from the table's key column: `name` rows match a group's
/// event id; `instruction` rows whose op is `device:<device>` match that instruction's group of
/// the device (`counters` grouped by instruction); `operator` rows `device:<device>` get the sum
/// of the device's groups. Returns false, leaving `stats` unchanged, for a grouping the counters
/// do not map to (`debug_handle`, and `operator` with `input_shapes`, which counts no device
/// events): print `profiler_counters_table` instead.
bool add_counter_columns(Table& stats, const ProfilerCounters& counters);

}  // namespace etkit::inspect
