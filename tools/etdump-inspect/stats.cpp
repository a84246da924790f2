// `etdump-inspect stats DUMP...`: latency statistics per event name (or operator, or
// instruction) and a summary by operator type, per dump and, for several dumps, pooled.

#include <memory>

#include "etdump_inspect.h"
#include "etkit/inspect/profiler_counters.h"
#include "etkit/inspect/stats.h"
#include "etkit/tools/diagnostics.h"

namespace etkit::tools {

namespace {

struct StatsOptions : DumpOptions {
  std::string by = "name";
  std::string sort = "total";
  size_t top = 0;
};

}  // namespace

Subcommand add_stats(CLI::App& app) {
  auto options = std::make_shared<StatsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "stats", "Latency statistics per event name, operator or instruction, and a summary by "
               "operator type");
  cmd->add_option("dumps", options->dumps, "ETDump files")->required();
  cmd->add_option("--by", options->by, "Group by name, operator or instruction (default name)")
      ->check(CLI::IsMember({"name", "operator", "instruction"}));
  cmd->add_option("--sort", options->sort,
                  "Order rows by total, self, count, min, p50, mean, max (descending) or key "
                  "(default total)")
      ->check(CLI::IsMember({"total", "self", "count", "min", "p50", "mean", "max", "key"}));
  cmd->add_option("--top", options->top, "Print only the first N rows of each statistics table");
  add_selection_flags(*cmd, *options);
  add_output_flags(*cmd, *options);
  add_jobs_flag(*cmd, *options);
  add_program_flag(*cmd, *options);
  return {cmd, [options]() {
            std::vector<inspect::Trace> traces;
            int code = kExitOk;
            if (!load_dumps(*options, options->jobs, traces, code)) return code;
            const inspect::TimeUnit unit = *inspect::parse_time_unit(options->time_unit);
            const inspect::GroupBy by = *inspect::parse_group_by(options->by);
            const inspect::SortKey sort = *inspect::parse_sort_key(options->sort);
            std::vector<inspect::TraceSelection> all;
            std::vector<inspect::Table> tables;
            for (const inspect::Trace& trace : traces) {
              inspect::TraceSelection s;
              s.trace = &trace;
              if (!select(trace, *options, true, s.events)) return kExitUsage;
              const std::vector<inspect::TraceSelection> one = {s};
              tables.push_back(inspect::stats_table(inspect::compute_stats(one, by, sort), by,
                                                    unit, options->top,
                                                    "statistics of " + trace.path));
              tables.push_back(inspect::operator_summary_table(
                  one, unit, "operator summary of " + trace.path));
              // Counters of profiler backends (trace-run --profiler perf), when it has any.
              if (trace.path != "-") {
                Result<inspect::Table> counters = inspect::dump_counters_table(
                    trace.path, {}, by == inspect::GroupBy::Instruction);
                if (!counters.ok()) {
                  print_error(kEtdumpInspect, counters.error().message());
                  return kExitUsage;
                }
                if (!counters->rows.empty()) tables.push_back(std::move(counters).get());
              }
              all.push_back(std::move(s));
            }
            if (traces.size() > 1) {
              const std::string n = std::to_string(traces.size());
              tables.push_back(inspect::stats_table(inspect::compute_stats(all, by, sort), by,
                                                    unit, options->top,
                                                    "statistics of all " + n + " dumps"));
              tables.push_back(
                  inspect::operator_summary_table(all, unit, "operator summary of all " + n +
                                                                 " dumps"));
            }
            print_tables(tables, *inspect::parse_format(options->format));
            return kExitOk;
          }};
}

}  // namespace etkit::tools
