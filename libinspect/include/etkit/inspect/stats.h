#pragma once

// Latency statistics of `etdump-inspect stats` (and the medians `diff` compares): events grouped
// by method and by name, operator or instruction, with count, min, p10, p50, p90, mean, max,
// total, self time and share; and a summary by operator type (percent, cumulative percent,
// calls) as TFLite's benchmark tool prints it.
//
// Percentiles interpolate linearly between the two nearest samples (numpy's default, as
// ExecuTorch's Inspector computes them). Share is the group's self time as a percentage of the
// method's traced time: the sum of the durations of its outermost events in the selected blocks
// (so the shares of a method's names add up to 100%). Grouping by operator or instruction counts
// each instruction's outermost selected event only (OPERATOR_CALL, not also the native_call
// inside it), and its share is the total, not self, time.
//
// Device events (`TraceEvent::device`, a profiler backend's `prof:<device>:<event>`) measure
// time that overlaps the host's instructions, so they are kept apart from host time: they are
// not part of a method's traced time; grouped by name they keep their own rows; grouped by
// operator they count under `device:<device>` (every device event, an instruction's or not),
// grouped by instruction in a row of their own per instruction and device (op
// `device:<device>`), and not at all by debug handle. Their share is their time as a percent of
// the method's host traced time (how busy the device was), so the host rows alone add up to
// 100%. The operator summary lists host operators only; `device_summary_table` lists the
// devices.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/inspect/table.h"
#include "etkit/inspect/trace.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/inspect/operator_naming.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/method_map.h"
#include "etkit/inspect/op_cost.h"

namespace etkit::inspect {

class CounterAccumulator;  // profiler_counters.h

/// What a statistics row stands for.
enum class GroupBy { Name, Operator, Instruction, DebugHandle, Shape };
/// Parses "name", "operator", "instruction", "debug-handle" or "shape". Errors:
/// `InvalidArgument`.
Result<GroupBy> parse_group_by(std::string_view text);

/// Order of statistics rows: descending by a time or the count, or ascending by key.
enum class SortKey { Total, Self, Count, Min, P50, Mean, Max, Key };
/// Parses "total", "self", "count", "min", "p50", "mean", "max" or "key". Errors:
/// `InvalidArgument`.
Result<SortKey> parse_sort_key(std::string_view text);

/// Events of one trace to take into account.
struct TraceSelection {
  const Trace* trace = nullptr;
  std::vector<size_t> events;  ///< Indices into `trace->events`.
};

/// One group's statistics; times in nanoseconds.
struct GroupStats {
  std::string method;
  std::string key;  ///< Name, operator, or instruction as decimal text.
  std::string op;   ///< The group's operator when grouped by instruction or debug handle.
  std::string node;  ///< The node's name when grouped by debug handle (else empty).
  bool device = false;  ///< A row of device events (see the file comment).
  size_t count = 0;
  double min = 0, p10 = 0, p50 = 0, p90 = 0, mean = 0, max = 0, total = 0, self = 0;
  double share = 0;  ///< Percent (see the file comment).
  std::string shapes;  ///< The input tensors when grouped by shape (`input_shapes_text`).
  /// Work done (op_cost.h), summed over the group's events, with a debug map that records
  /// arguments: `costed` events had arguments (`bytes` is theirs), `flopped` had a FLOP formula.
  size_t costed = 0, flopped = 0;
  double flops = 0, bytes = 0;
  size_t iterations = 0;  ///< The method's blocks the statistics saw (its iterations).

  /// GFLOP/s over the group's total time, when every event had a FLOP count; else negative.
  double gflops_per_s() const;
  /// GB/s over the group's total time, when every event had arguments; else negative.
  double gbytes_per_s() const;
};

/// Grouping by debug handle (`GroupBy::DebugHandle`, with a debug map): a delegate event counts
/// under the debug handles of its delegate debug id; the outermost selected event of any other
/// instruction counts under that instruction's handles, except a DelegateCall's (its delegate
/// events stand for its handles). An event standing for several handles is counted whole under
/// each of them, so the shares of a method's handles may add up to more than 100%. The group's
/// `node` and `op` are the map's node name and operator for the handle. Events the map names no
/// handle for are not counted.
///
/// Grouping by shape (`GroupBy::Shape`, with a debug map that records arguments, as PyTorch's
/// `group_by_input_shape`): the outermost selected event of each instruction counts under its
/// operator and its input tensors (`input_shapes_text`); an instruction without arguments under
/// its operator and no shapes. Device events are not counted.
///
/// With a map, events grouped by operator, instruction or shape also sum the work of their
/// instruction (`op_cost`), for GFLOP/s and GB/s.
///
/// Statistics of the selected events of all `sources` pooled, sorted by `sort` (ties by method,
/// then key ascending).
std::vector<GroupStats> compute_stats(const std::vector<TraceSelection>& sources, GroupBy by,
                                      SortKey sort);

/// `compute_stats` fed piece by piece: a trace joined block by block (`TraceReader`) is
/// aggregated one block at a time, so its events are never all in memory. Each group keeps its
/// durations (8 bytes per event, for exact percentiles) and its self time. Feeding the events
/// of `compute_stats`'s sources in the same order gives bit-identical statistics.
class StatsAccumulator {
 public:
  /// With `mergeable`, the accumulator also keeps each event's self time and each block's
  /// outermost durations (8 more bytes per event), so that `merge` can sum them in event order.
  /// Grouping by debug handle needs `map` (see `group_by_debug_handle`); it is ignored
  /// otherwise and must outlive the accumulator.
  explicit StatsAccumulator(GroupBy by, bool mergeable = false, const DebugMap* map = nullptr);
  /// Adds the events `events` of `trace` (indices into `trace.events`, ascending). Every block
  /// must be added in one call at most: the method's traced time counts each block that has an
  /// event in `events` once per call.
  void add(const Trace& trace, const std::vector<size_t>& events);
  /// Adds what `other` (mergeable) accumulated, after what this one has: pooling per-dump
  /// accumulators in dump order gives the statistics of all their events, as if added here.
  void merge(const StatsAccumulator& other);
  /// The statistics, sorted by `sort` (as `compute_stats`).
  std::vector<GroupStats> finish(SortKey sort);

 private:
  // Values in chunks of a fixed capacity: growing never copies what is kept, nor touches fresh
  // pages for a copy (doubling vectors of a million durations had been a sixth of `stats`).
  class Samples {
   public:
    void push_back(double x) {
      if (chunks_.empty() || chunks_.back().size() == kChunk) {
        chunks_.emplace_back().reserve(kChunk);
      }
      chunks_.back().push_back(x);
    }
    size_t size() const {
      return chunks_.empty() ? 0 : (chunks_.size() - 1) * kChunk + chunks_.back().size();
    }
    /// Appends the values, in order, to `out`.
    void copy_to(std::vector<double>& out) const {
      for (const std::vector<double>& c : chunks_) out.insert(out.end(), c.begin(), c.end());
    }
    void append(const Samples& other) {
      for (const std::vector<double>& c : other.chunks_) {
        for (double x : c) push_back(x);
      }
    }

   private:
    static constexpr size_t kChunk = 4096;  // 32 KiB
    std::vector<std::vector<double>> chunks_;
  };
  struct Group {
    std::string method;
    std::string key;
    std::string op;
    std::string node;
    bool device = false;
    std::string shapes;
    Samples durations;
    double self = 0;
    size_t costed = 0, flopped = 0;
    double flops = 0, bytes = 0;
    std::vector<double> selfs;  // mergeable only
  };
  struct MethodTime {
    double total = 0;
    size_t blocks = 0;
    std::vector<double> roots;  // mergeable only
  };
  // A recent (method, key) -> group lookup, found by the key's address and size and confirmed
  // by content, so an address reused by another trace or block can only miss. Once confirmed
  // within an `add` call (`epoch`), the same key address and size with the same method string
  // (its address in the trace) are the same texts until the call returns: they hit without
  // comparing texts.
  struct Slot {
    size_t group = SIZE_MAX;
    const void* id = nullptr;
    size_t size = 0;
    const std::string* method = nullptr;
    uint64_t epoch = 0;  // 0: never confirmed
  };
  size_t group_of(const std::string& method, const void* key_id, size_t key_size,
                  std::string_view key);
  /// The group of (method, key), added (empty) on first use.
  size_t find_or_add(const std::string& method, std::string_view key);

  GroupBy by_;
  bool mergeable_;
  const DebugMap* map_ = nullptr;
  std::vector<Group> groups_;
  std::map<std::pair<std::string, std::string>, size_t> index_;
  std::map<std::string, MethodTime> totals_;
  std::vector<Slot> slots_;
  uint64_t epoch_ = 0;  // `add` calls so far
  std::vector<uint8_t> selected_;  // scratch: selected events of the range being added
  std::map<const InstructionEntry*, std::pair<OpCost, std::string>> costs_;  // cost, shapes
};

/// The `stats` path over a dump opened with `TraceReader`: joins the blocks `selector` selects one
/// at a time (a block's events are dropped before the next is joined) and adds their selected
/// events to `by` and, when not null, `ops` and `counters` (so the dump is read once). With a
/// `namer`, every block is joined and named first, as `name_operators` names a whole trace, and
/// its errors are returned; a null `selector` selects nothing (only naming is checked). With
/// `methods`, events are counted under the method names it gives their blocks (method_map.h),
/// after naming and selection by the blocks' own names. `visit`, when given, is called with each
/// selected block once it is joined, named and selected (its own method name): a caller that
/// gathers more from the same blocks reads the dump once.
using SelectedBlockVisitor =
    std::function<void(const Trace& trace, size_t b, const std::vector<size_t>& selected)>;
Error accumulate_stats(TraceReader& reader, EventSelector* selector, OperatorNamer* namer,
                       StatsAccumulator& by, StatsAccumulator* ops,
                       CounterAccumulator* counters = nullptr, const MethodMap* methods = nullptr,
                       const SelectedBlockVisitor& visit = {});

/// Linear-interpolation percentile `p` (0..100) of `sorted` (ascending, non-empty).
double percentile(const std::vector<double>& sorted, double p);

/// The statistics table: columns method, NAME|operator|instruction (+ op for instruction),
/// (operator, input_shapes when grouped by shape), count, min, p10, p50, p90, mean, max, total,
/// self, share (percent), and when some group has arguments flops and bytes (per call),
/// gflop_per_s and gb_per_s (each empty where unknown); at most `top` rows (0 = all).
Table stats_table(const std::vector<GroupStats>& stats, GroupBy by, TimeUnit unit, size_t top,
                  std::string title);

/// The summary by operator type (TFLite benchmark_model's "summary by node type"): columns
/// method, operator, calls, per_iteration (calls per iteration of the method), total, mean (per
/// call), percent (of the method's operator time), cumulative (percent), and when some operator
/// has a FLOP count flops_percent (its share of the method's counted FLOPs; empty for an
/// operator without a formula), ordered by total descending.
/// Host operators only: device rows are left to `device_summary_table`.
Table operator_summary_table(const std::vector<TraceSelection>& sources, TimeUnit unit,
                             std::string title);
/// The same from statistics grouped by operator (`GroupBy::Operator`, any order).
Table operator_summary_table(std::vector<GroupStats> op_stats, TimeUnit unit, std::string title);

/// The summary of device events from statistics grouped by operator: columns method, device,
/// events, total, mean (per event), percent (of the method's host operator time, the operator
/// summary's 100%; it may exceed 100 when a device is busier than the host), ordered by method,
/// then total descending. No rows when there are no device events.
Table device_summary_table(std::vector<GroupStats> op_stats, TimeUnit unit, std::string title);

}  // namespace etkit::inspect
