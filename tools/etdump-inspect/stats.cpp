// `etdump-inspect stats DUMP...`: latency statistics per event name (or operator, or
// instruction) and a summary by operator type, per dump and, for several dumps, pooled.

#include <memory>
#include <optional>

#include "etdump_inspect.h"
#include "etkit/inspect/profiler_counters.h"
#include "etkit/inspect/stats.h"
#include "etkit/host/runner.h"
#include "etkit/tools/diagnostics.h"

namespace etkit::tools {

namespace {

struct StatsOptions : DumpOptions {
  std::string by = "name";
  std::string sort = "total";
  size_t top = 0;
};

// One dump, joined and aggregated block by block (its events are never all in memory; see
// DESIGN.md section 5). The errors are kept to be reported in the order a whole load would
// meet them: unreadable dumps, then operator naming, then the selection.
struct DumpStats {
  std::string path;
  std::string load_error;
  std::string name_error;
  std::string select_error;
  std::unique_ptr<inspect::StatsAccumulator> by;
  std::unique_ptr<inspect::StatsAccumulator> ops;  // by operator, for the summary
  std::unique_ptr<inspect::CounterAccumulator> counters;  // profiler counters (trace-run --profiler)
};

void aggregate(const StatsOptions& options, inspect::GroupBy by, bool mergeable,
               const Program* program, const inspect::DebugMap* map,
               std::vector<uint8_t>& stdin_bytes, DumpStats& out) {
  Result<inspect::TraceReader> reader = open_dump(out.path, stdin_bytes);
  if (!reader.ok()) {
    out.load_error = reader.error().message();
    return;
  }
  out.select_error = selection_error(reader->skeleton(), options);
  std::optional<inspect::EventSelector> selector;
  if (out.select_error.empty()) {
    Result<inspect::EventSelector> made =
        inspect::EventSelector::make(event_selection(options, true));
    if (made.ok()) {
      selector.emplace(std::move(made).get());
    } else {
      out.select_error = made.error().message();
    }
  }
  std::optional<inspect::OperatorNamer> namer;
  if (program != nullptr || map != nullptr) namer.emplace(program, map);
  out.by = std::make_unique<inspect::StatsAccumulator>(by, mergeable, map);
  if (by != inspect::GroupBy::Operator) {
    out.ops = std::make_unique<inspect::StatsAccumulator>(inspect::GroupBy::Operator, mergeable);
  }
  out.counters = std::make_unique<inspect::CounterAccumulator>(by == inspect::GroupBy::Instruction);
  // With --program every block is named, as a whole load would, to report a mismatch. The
  // profiler counters are gathered in the same pass: the dump is read once.
  const Error e = inspect::accumulate_stats(*reader, selector ? &*selector : nullptr,
                                            namer ? &*namer : nullptr, *out.by, out.ops.get(),
                                            out.counters.get());
  if (!e.ok()) out.name_error = e.message();
}

int run_stats(const StatsOptions& options) {
  int code = kExitOk;
  std::optional<inspect::DebugMap> map;
  if (!load_debug_map(options, map, code)) return code;
  const inspect::DebugMap* m = map ? &*map : nullptr;
  if (options.by == "debug-handle" && m == nullptr) {
    print_error(kEtdumpInspect, "--by debug-handle needs --debug-map FILE");
    return kExitUsage;
  }
  std::vector<uint8_t> stdin_bytes;
  if (!read_stdin_once(options.dumps, stdin_bytes, code)) return code;
  std::optional<ProgramFile> program;
  std::string program_error;
  if (!options.program.empty()) {
    Result<ProgramFile> file = ProgramFile::open(options.program);
    if (file.ok()) {
      program.emplace(std::move(file).get());
    } else {
      program_error = file.error().message();
    }
  }
  const inspect::GroupBy by = *inspect::parse_group_by(options.by);
  const inspect::SortKey sort = *inspect::parse_sort_key(options.sort);
  const inspect::TimeUnit unit = *inspect::parse_time_unit(options.time_unit);
  const bool pooled = options.dumps.size() > 1;
  std::vector<DumpStats> dumps(options.dumps.size());
  for (size_t i = 0; i < dumps.size(); ++i) dumps[i].path = options.dumps[i];
  parallel_for(dumps.size(), options.jobs, [&](size_t i) {
    if (!options.program.empty() && !program) {
      // Only whether the dump reads matters now: the program error follows the dumps' errors.
      Result<inspect::TraceReader> reader = open_dump(dumps[i].path, stdin_bytes);
      if (!reader.ok()) dumps[i].load_error = reader.error().message();
      return;
    }
    aggregate(options, by, pooled, program ? &program->program() : nullptr, m, stdin_bytes,
              dumps[i]);
  });
  auto fail = [](const std::string& message) {
    print_error(kEtdumpInspect, message);
    return kExitUsage;
  };
  for (const DumpStats& d : dumps) {
    if (!d.load_error.empty()) return fail(d.load_error);
  }
  if (!program_error.empty()) return fail(program_error);
  for (const DumpStats& d : dumps) {
    if (!d.name_error.empty()) return fail(d.name_error);
  }
  for (const DumpStats& d : dumps) {
    if (!d.select_error.empty()) return fail(d.select_error);
  }
  std::vector<inspect::Table> tables;
  // Counters of profiler backends (trace-run --profiler perf) go into the statistics as extra
  // columns, or as a table of their own where the grouping cannot take them.
  auto add_tables = [&](inspect::StatsAccumulator& acc, inspect::StatsAccumulator* ops,
                        const std::string& what, const inspect::ProfilerCounters* counters) {
    tables.push_back(inspect::stats_table(acc.finish(sort), by, unit, options.top,
                                          "statistics of " + what));
    std::optional<inspect::Table> counter_table;
    if (counters != nullptr && !counters->empty() &&
        !inspect::add_counter_columns(tables.back(), *counters)) {
      counter_table = inspect::profiler_counters_table(
          *counters, by == inspect::GroupBy::Instruction, "profiler counters of " + what);
    }
    std::vector<inspect::GroupStats> op_stats =
        ops != nullptr ? ops->finish(inspect::SortKey::Total) : acc.finish(inspect::SortKey::Total);
    // Profiler device events (trace-run --profiler) apart from the host's operators.
    inspect::Table devices =
        inspect::device_summary_table(op_stats, unit, "device summary of " + what);
    tables.push_back(
        inspect::operator_summary_table(std::move(op_stats), unit, "operator summary of " + what));
    if (!devices.rows.empty()) tables.push_back(std::move(devices));
    if (counter_table) tables.push_back(std::move(*counter_table));
  };
  for (DumpStats& d : dumps) {
    const inspect::ProfilerCounters counters = d.counters->finish();
    add_tables(*d.by, d.ops.get(), d.path, &counters);
  }
  if (pooled) {
    inspect::StatsAccumulator all(by, true, m);
    inspect::StatsAccumulator all_ops(inspect::GroupBy::Operator, true);
    for (const DumpStats& d : dumps) {
      all.merge(*d.by);
      if (d.ops) all_ops.merge(*d.ops);
    }
    add_tables(all, by != inspect::GroupBy::Operator ? &all_ops : nullptr,
               "all " + std::to_string(dumps.size()) + " dumps", nullptr);
  }
  print_tables(tables, *inspect::parse_format(options.format));
  return kExitOk;
}

}  // namespace

Subcommand add_stats(CLI::App& app) {
  auto options = std::make_shared<StatsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "stats", "Latency statistics per event name, operator or instruction, and a summary by "
               "operator type");
  cmd->add_option("dumps", options->dumps, "ETDump files")->required();
  cmd->add_option("--by", options->by,
                  "Group by name, operator, instruction or debug-handle (needs --debug-map; "
                  "default name)")
      ->check(CLI::IsMember({"name", "operator", "instruction", "debug-handle"}));
  cmd->add_option("--sort", options->sort,
                  "Order rows by total, self, count, min, p50, mean, max (descending) or key "
                  "(default total)")
      ->check(CLI::IsMember({"total", "self", "count", "min", "p50", "mean", "max", "key"}));
  cmd->add_option("--top", options->top, "Print only the first N rows of each statistics table");
  add_selection_flags(*cmd, *options);
  add_output_flags(*cmd, *options);
  add_jobs_flag(*cmd, *options);
  add_program_flag(*cmd, *options);
  add_debug_map_flag(*cmd, *options);
  return {cmd, [options]() { return run_stats(*options); }};
}

}  // namespace etkit::tools
