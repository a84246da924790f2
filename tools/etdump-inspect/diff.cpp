// `etdump-inspect diff A B`: a latency statistic per event in A and B, for CI. Exit 0 when
// nothing regressed, 1 on a regression or a structural difference (an event in only one dump, an
// instruction whose operator changed), 4 when nothing was compared, 2 on unreadable input.

#include <memory>
#include <optional>
#include <span>

#include "etdump_inspect.h"
#include "etkit/inspect/diff.h"
#include "etkit/tools/diagnostics.h"

namespace etkit::tools {

namespace {

struct DiffOptions : DumpOptions {
  double threshold = 10;
  std::string min_time = "0";
  std::string statistic = "median";
  size_t min_samples = 1;
  std::string debug_map_a;
  std::string debug_map_b;
};

// --method names A's method; B's blocks of it may have another name (--method-map).
DumpOptions options_of_b(const DumpOptions& options, const inspect::MethodMap& methods) {
  DumpOptions options_b = options;
  for (const auto& [name_a, name_b] : methods) {
    if (name_a == options.method) options_b.method = name_b;
  }
  return options_b;
}

// The tables, the dumps' warnings and why the diff is incomplete; `a` and `b` are the joined
// traces or the readers' skeletons (only their blocks, paths and warnings are read).
int print_diff(const inspect::DiffResult& result, const inspect::Trace& a, const inspect::Trace& b,
               const DiffOptions& options, const inspect::DiffOptions& diff_options) {
  std::vector<std::string> warnings = dump_warnings(a);
  for (std::string& w : dump_warnings(b)) warnings.push_back(std::move(w));
  // Written row by row from the result: as a table, a diff of 10,000 instructions held 20 MB.
  inspect::ReportStream out = stdout_report(options, std::move(warnings));
  const Error e = inspect::write_diff_tables(
      result, time_unit(options), "diff of " + a.path + " (a) and " + b.path + " (b)", out);
  if (!e.ok()) return report(kEtdumpInspect, e);
  out.finish();
  const std::string why = inspect::diff_incomplete_text(result, a, b, diff_options);
  if (!why.empty()) print_error(kEtdumpInspect, "diff: incomplete: " + why);
  return verdict_exit_code(result.verdict());
}

// Without --program and debug maps, the dumps are diffed one block at a time (`diff_dumps`), so
// neither joined trace is held (DESIGN.md section 5). The checks are the joined path's, in its
// order and before any output: both dumps opened (and so verified), the method map, then each
// dump's selection (A's, the regex, B's).
int run_diff_streamed(const DiffOptions& options, const inspect::DiffOptions& diff_options) {
  int code = kExitOk;
  std::vector<uint8_t> stdin_bytes;
  if (!read_stdin_once(options.dumps, stdin_bytes, code)) return code;
  // Opened (and so verified) one after the other, the first error in argument order reported
  // as `load_dumps` does; each gives its pages back once verified, so that one dump at a time
  // is resident.
  std::vector<inspect::TraceReader> opened;
  for (const std::string& path : options.dumps) {
    Result<inspect::TraceReader> reader = open_dump(path, stdin_bytes);
    if (!reader.ok()) return report(kEtdumpInspect, reader.error());
    reader->release_pages();
    opened.push_back(std::move(reader).get());
  }
  inspect::TraceReader& a = opened[0];
  inspect::TraceReader& b = opened[1];
  const inspect::Trace skeleton_a = a.skeleton();
  const inspect::Trace skeleton_b = b.skeleton();
  if (const Error e = inspect::check_method_map(diff_options.methods, skeleton_a, skeleton_b);
      !e.ok()) {
    print_error(kEtdumpInspect, e.message());
    return kExitUsage;
  }
  const DumpOptions options_b = options_of_b(options, diff_options.methods);
  const inspect::EventSelection select_a = event_selection(options, true);
  const inspect::EventSelection select_b = event_selection(options_b, true);
  std::string e = selection_error(skeleton_a, options);
  if (e.empty()) {
    if (Result<inspect::EventSelector> s = inspect::EventSelector::make(select_a); !s.ok()) {
      e = s.error().message();
    }
  }
  if (e.empty()) e = selection_error(skeleton_b, options_b);
  if (!e.empty()) {
    print_error(kEtdumpInspect, e);
    return kExitUsage;
  }
  Result<inspect::DiffResult> result = inspect::diff_dumps(a, b, select_a, select_b, diff_options);
  if (!result.ok()) {
    print_error(kEtdumpInspect, result.error().message());
    return kExitUsage;
  }
  return print_diff(*result, skeleton_a, skeleton_b, options, diff_options);
}

int run_diff(const DiffOptions& options) {
  Result<double> min_time = inspect::parse_duration_ns(options.min_time);
  if (!min_time.ok()) {
    print_error(kEtdumpInspect, std::string("--min-time: ") + min_time.error().message());
    return kExitUsage;
  }
  inspect::DiffOptions diff_options;
  diff_options.threshold_pct = options.threshold;
  diff_options.min_time_ns = *min_time;
  diff_options.statistic = *inspect::parse_diff_statistic(options.statistic);
  diff_options.min_samples = options.min_samples;
  if (!method_map(options, diff_options.methods)) return kExitUsage;
  // Each side's map: its own flag, else --debug-map; both or neither.
  const std::string path_a = options.debug_map_a.empty() ? options.debug_map : options.debug_map_a;
  const std::string path_b = options.debug_map_b.empty() ? options.debug_map : options.debug_map_b;
  if (path_a.empty() != path_b.empty()) {
    print_error(kEtdumpInspect,
                std::string("diff: a debug map for ") + (path_a.empty() ? "B" : "A") +
                    " only; give one for " +
                    (path_a.empty() ? "A (--debug-map-a)" : "B (--debug-map-b)") +
                    " too, or --debug-map for both");
    return kExitUsage;
  }
  if (path_a.empty() && options.program.empty()) return run_diff_streamed(options, diff_options);
  // With a program or debug maps, both dumps are joined whole and named before anything else is
  // checked, as naming errors come first.
  std::optional<inspect::DebugMap> map_a, map_b;
  int code = kExitOk;
  if (!load_debug_map(path_a, map_a, code) || !load_debug_map(path_b, map_b, code)) return code;
  std::vector<inspect::Trace> traces;
  if (!load_dumps(options.dumps, 2, traces, code)) return code;
  if (!name_operators(std::span(traces).first(1), options, map_a ? &*map_a : nullptr, code) ||
      !name_operators(std::span(traces).subspan(1), options, map_b ? &*map_b : nullptr, code)) {
    return code;
  }
  if (const Error e = inspect::check_method_map(diff_options.methods, traces[0], traces[1]);
      !e.ok()) {
    print_error(kEtdumpInspect, e.message());
    return kExitUsage;
  }
  diff_options.map_a = map_a ? &*map_a : nullptr;
  diff_options.map_b = map_b ? &*map_b : nullptr;
  inspect::TraceSelection a{&traces[0], {}};
  inspect::TraceSelection b{&traces[1], {}};
  if (!select(traces[0], options, true, a.events) ||
      !select(traces[1], options_of_b(options, diff_options.methods), true, b.events)) {
    return kExitUsage;
  }
  return print_diff(inspect::diff_traces(a, b, diff_options), traces[0], traces[1], options,
                    diff_options);
}

}  // namespace

Subcommand add_diff(CLI::App& app) {
  auto options = std::make_shared<DiffOptions>();
  CLI::App* cmd = app.add_subcommand(
      "diff", "Compare the median latency of every event in dump A and dump B (exit 1 on a "
              "regression or a structural difference, 4 when nothing was compared)");
  cmd->add_option("dumps", options->dumps, "Dumps A (baseline) and B")->required()->expected(2);
  cmd->add_option("--threshold", options->threshold,
                  "Slowdown of the statistic, in percent, that is a regression (default 10)")
      ->check(at_least(0, false));
  cmd->add_option("--min-time", options->min_time,
                  "Smallest slowdown that is a regression, e.g. 2us (default 0)");
  cmd->add_option("--statistic", options->statistic,
                  "Statistic of each event's samples compared: median, mean or min (default "
                  "median)")
      ->check(CLI::IsMember({"median", "mean", "min"}));
  cmd->add_option("--min-samples", options->min_samples,
                  "Judge only events with at least N samples on each side (default 1)")
      ->check(at_least(1, true));
  cmd->add_option("--method", options->method, "Only blocks of method NAME");
  cmd->add_option("--name", options->name_regex, "Only events whose name fully matches REGEX");
  add_method_map_flag(*cmd, *options,
                      "Pair B's blocks of method B with A's of method A (e.g. Execute=forward; "
                      "repeatable)");
  add_iteration_flags(*cmd, *options);
  add_output_flags(*cmd, *options);
  add_program_flag(*cmd, *options);
  cmd->add_option("--debug-map", options->debug_map,
                  "Debug map of both dumps: match instructions and delegate events by debug "
                  "handle");
  cmd->add_option("--debug-map-a", options->debug_map_a,
                  "Debug map of A (with --debug-map-b: match by debug handle)");
  cmd->add_option("--debug-map-b", options->debug_map_b,
                  "Debug map of B (with --debug-map-a: match by debug handle)");
  return {cmd, [options]() { return run_diff(*options); }};
}

}  // namespace etkit::tools
