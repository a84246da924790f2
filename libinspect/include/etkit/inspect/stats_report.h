#pragma once

// The report `etdump-inspect stats` prints, assembled here so that the tool only opens dumps,
// calls these and prints: per dump, the statistics table (with profiler counters as extra
// columns, or a table of their own where the grouping cannot take them), the operator summary
// and, when there are device events, the device summary; for several dumps the same tables
// pooled over all of them (without counters). See stats.h for the statistics themselves.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "etkit/runtime/program.h"
#include "etkit/runtime/result.h"
#include "etkit/inspect/debug_map.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/method_map.h"
#include "etkit/inspect/profiler_counters.h"
#include "etkit/inspect/stats.h"
#include "etkit/inspect/table.h"
#include "etkit/inspect/trace_reader.h"

namespace etkit::inspect {

/// How the report is grouped, ordered and shown.
struct StatsReportOptions {
  GroupBy by = GroupBy::Name;
  SortKey sort = SortKey::Total;
  TimeUnit unit = TimeUnit::Ms;
  size_t top = 0;              ///< Rows per statistics table; 0 = all.
  bool pooled = false;         ///< Several dumps: accumulate mergeably and add pooled tables.
  const DebugMap* map = nullptr;  ///< Needed for `GroupBy::DebugHandle`; must outlive the report.
  /// Method names to count blocks under (--method-map), in every dump; must outlive the report.
  const MethodMap* methods = nullptr;
};

/// One dump's statistics, gathered block by block (its events are never all in memory).
struct DumpStats {
  std::string path;  ///< Names the dump in table titles.
  std::unique_ptr<StatsAccumulator> by;
  std::unique_ptr<StatsAccumulator> ops;  ///< By operator, for the summary (null when `by` is).
  std::unique_ptr<CounterAccumulator> counters;  ///< Profiler counters (trace-run --profiler).
};

/// Gathers the dump of `reader` into `out` (its accumulators made here): the events `selector`
/// selects (null: none, only naming is checked), operators named from `program` and then
/// `options.map` when given (either may be null). The profiler counters come from the same pass:
/// the dump is read once; so can the caller's `visit` (`accumulate_stats`). Errors: those of
/// `accumulate_stats` (operator naming).
Error gather_dump_stats(TraceReader& reader, EventSelector* selector, const Program* program,
                        const StatsReportOptions& options, DumpStats& out,
                        const SelectedBlockVisitor& visit = {});

/// The report's tables over `dumps` (gathered with the same `options`), in dump order, then
/// pooled when `options.pooled` (each dump's accumulators are merged after being finished).
std::vector<Table> stats_report(std::vector<DumpStats>& dumps, const StatsReportOptions& options);

}  // namespace etkit::inspect
