// `etdump-inspect stats DUMP...`: latency statistics per event name (or operator, or
// instruction) and a summary by operator type, per dump and, for several dumps, pooled.

#include <memory>
#include <optional>

#include "etdump_inspect.h"
#include "etkit/host/runner.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/stats_report.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/tools/diagnostics.h"

namespace etkit::tools {

namespace {

struct StatsOptions : DumpOptions {
  std::string by = "name";
  std::string sort = "total";
  size_t top = 0;
};

// One dump's statistics (inspect::DumpStats) and the errors met gathering them, kept to be
// reported in the order a whole load would meet them: unreadable dumps, then operator naming,
// then the selection.
struct DumpResult {
  inspect::DumpStats stats;
  Error load_error;
  Error name_error;
  std::string select_error;
  std::vector<std::string> warnings;  // the dump's (truncation), with its path
};

void aggregate(const StatsOptions& options, const inspect::StatsReportOptions& report,
               const Program* program, std::vector<uint8_t>& stdin_bytes, DumpResult& out) {
  Result<inspect::TraceReader> reader = open_dump(out.stats.path, stdin_bytes);
  if (!reader.ok()) {
    out.load_error = reader.error();
    return;
  }
  const inspect::Trace skeleton = reader->skeleton();
  out.warnings = dump_warnings(skeleton);
  out.select_error = selection_error(skeleton, options);
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
  const Error e = inspect::gather_dump_stats(*reader, selector ? &*selector : nullptr, program,
                                             report, out.stats);
  if (!e.ok()) out.name_error = e;
}

int run_stats(const StatsOptions& options) {
  int code = kExitOk;
  std::optional<inspect::DebugMap> map;
  if (!load_debug_map(options, map, code)) return code;
  if ((options.by == "debug-handle" || options.by == "shape") && !map) {
    print_error(kEtdumpInspect, "--by " + options.by + " needs --debug-map FILE");
    return kExitUsage;
  }
  std::vector<uint8_t> stdin_bytes;
  if (!read_stdin_once(options.dumps, stdin_bytes, code)) return code;
  std::optional<ProgramFile> program;
  Error program_error;
  if (!options.program.empty()) {
    Result<ProgramFile> file = ProgramFile::open(options.program);
    if (file.ok()) {
      program.emplace(std::move(file).get());
    } else {
      program_error = file.error();
    }
  }
  inspect::StatsReportOptions report;
  report.by = *inspect::parse_group_by(options.by);
  report.sort = *inspect::parse_sort_key(options.sort);
  report.unit = time_unit(options);
  report.top = options.top;
  report.pooled = options.dumps.size() > 1;
  report.map = map ? &*map : nullptr;
  inspect::MethodMap methods;
  if (!method_map(options, methods)) return kExitUsage;
  if (!methods.empty()) report.methods = &methods;
  std::vector<DumpResult> dumps(options.dumps.size());
  for (size_t i = 0; i < dumps.size(); ++i) dumps[i].stats.path = options.dumps[i];
  parallel_for(dumps.size(), options.jobs, [&](size_t i) {
    if (!options.program.empty() && !program) {
      // Only whether the dump reads matters now: the program error follows the dumps' errors.
      Result<inspect::TraceReader> reader = open_dump(dumps[i].stats.path, stdin_bytes);
      if (!reader.ok()) dumps[i].load_error = reader.error();
      return;
    }
    aggregate(options, report, program ? &program->program() : nullptr, stdin_bytes, dumps[i]);
  });
  for (const DumpResult& d : dumps) {
    if (!d.load_error.ok()) return tools::report(kEtdumpInspect, d.load_error);
  }
  if (!program_error.ok()) return tools::report(kEtdumpInspect, program_error);
  for (const DumpResult& d : dumps) {
    if (!d.name_error.ok()) return tools::report(kEtdumpInspect, d.name_error);
  }
  for (const DumpResult& d : dumps) {
    if (!d.select_error.empty()) {  // a bad regex, block or method: the flags' fault
      print_error(kEtdumpInspect, d.select_error);
      return kExitUsage;
    }
  }
  std::vector<inspect::DumpStats> gathered;
  std::vector<std::string> warnings;
  for (DumpResult& d : dumps) {
    gathered.push_back(std::move(d.stats));
    warnings.insert(warnings.end(), d.warnings.begin(), d.warnings.end());
  }
  print_tables(inspect::stats_report(gathered, report), options, warnings);
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
                  "Group by name, operator, instruction, debug-handle or shape (operator and "
                  "input shapes; these two need --debug-map; default name)")
      ->check(CLI::IsMember({"name", "operator", "instruction", "debug-handle", "shape"}));
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
  add_method_map_flag(*cmd, *options,
                      "Count blocks of method B as method A in every dump, to pool dumps whose "
                      "methods are named differently (e.g. Execute=forward; repeatable)");
  return {cmd, [options]() { return run_stats(*options); }};
}

}  // namespace etkit::tools
