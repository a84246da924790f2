#include "etkit/inspect/stats_report.h"

#include <optional>
#include <utility>

#include "etkit/inspect/operator_naming.h"

namespace etkit::inspect {

Error gather_dump_stats(TraceReader& reader, EventSelector* selector, const Program* program,
                        const StatsReportOptions& options, DumpStats& out,
                        const SelectedBlockVisitor& visit) {
  std::optional<OperatorNamer> namer;
  if (program != nullptr || options.map != nullptr) namer.emplace(program, options.map);
  out.by = std::make_unique<StatsAccumulator>(options.by, options.pooled, options.map);
  out.ops.reset();
  if (options.by != GroupBy::Operator) {
    out.ops = std::make_unique<StatsAccumulator>(GroupBy::Operator, options.pooled, options.map);
  }
  out.counters = std::make_unique<CounterAccumulator>(options.by == GroupBy::Instruction);
  // With a namer every block is named, as a whole load would, to report a mismatch.
  return accumulate_stats(reader, selector, namer ? &*namer : nullptr, *out.by, out.ops.get(),
                          out.counters.get(), options.methods, visit);
}

namespace {

// The tables of one dump (or of the pooled dumps) titled with `what`.
void add_tables(StatsAccumulator& acc, StatsAccumulator* ops, const std::string& what,
                const ProfilerCounters* counters, const StatsReportOptions& options,
                std::vector<Table>& tables) {
  tables.push_back(
      stats_table(acc.finish(options.sort), options.by, options.unit, options.top,
                  "statistics of " + what));
  // Counters of profiler backends (trace-run --profiler perf) go into the statistics as extra
  // columns, or as a table of their own where the grouping cannot take them.
  std::optional<Table> counter_table;
  if (counters != nullptr && !counters->empty() && !add_counter_columns(tables.back(), *counters)) {
    counter_table = profiler_counters_table(*counters, options.by == GroupBy::Instruction,
                                            "profiler counters of " + what);
  }
  std::vector<GroupStats> op_stats =
      ops != nullptr ? ops->finish(SortKey::Total) : acc.finish(SortKey::Total);
  // Profiler device events (trace-run --profiler) apart from the host's operators.
  Table devices = device_summary_table(op_stats, options.unit, "device summary of " + what);
  tables.push_back(
      operator_summary_table(std::move(op_stats), options.unit, "operator summary of " + what));
  if (!devices.rows.empty()) tables.push_back(std::move(devices));
  if (counter_table) tables.push_back(std::move(*counter_table));
}

}  // namespace

std::vector<Table> stats_report(std::vector<DumpStats>& dumps, const StatsReportOptions& options) {
  std::vector<Table> tables;
  for (DumpStats& d : dumps) {
    const ProfilerCounters counters = d.counters->finish();
    add_tables(*d.by, d.ops.get(), d.path, &counters, options, tables);
  }
  if (options.pooled) {
    StatsAccumulator all(options.by, true, options.map);
    StatsAccumulator all_ops(GroupBy::Operator, true, options.map);
    for (const DumpStats& d : dumps) {
      all.merge(*d.by);
      if (d.ops) all_ops.merge(*d.ops);
    }
    add_tables(all, options.by != GroupBy::Operator ? &all_ops : nullptr,
               "all " + std::to_string(dumps.size()) + " dumps", nullptr, options, tables);
  }
  return tables;
}

}  // namespace etkit::inspect
