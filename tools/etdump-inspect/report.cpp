// `etdump-inspect report DUMP [B] -o report.html`: one self-contained HTML page of a dump (or of
// two, with their comparison), built from the same tables as stats, diff, compare and values.

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "etdump_inspect.h"
#include "etkit/host/debug_buffer_path.h"
#include "etkit/host/runner.h"
#include "etkit/inspect/compare.h"
#include "etkit/inspect/diff.h"
#include "etkit/inspect/dump_info.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/html_report.h"
#include "etkit/inspect/report_data.h"
#include "etkit/inspect/report_streamed.h"
#include "etkit/inspect/stats_report.h"
#include "etkit/inspect/values.h"
#include "etkit/tools/diagnostics.h"
#include "etkit/tools/output_file.h"

namespace etkit::tools {

namespace {

struct ReportOptions : DumpOptions {
  std::string output = "-";
  int64_t iteration = -1;
  size_t max_spans = 20000;
  std::string debug_buffer;
  double threshold = 10;
  std::string min_time = "0";
  std::string statistic = "median";
  double atol = 1e-8;
  double rtol = 1e-5;
};

// The tables `stats DUMP --format json` prints (default grouping and order, in ms), from the
// same calls as the stats subcommand: the dump is read again, block by block.
bool stats_tables(const ReportOptions& options, const std::string& path, const Program* program,
                  const inspect::DebugMap* map, std::vector<inspect::Table>& out, int& code) {
  Result<inspect::TraceReader> reader = inspect::TraceReader::open(path);
  if (!reader.ok()) {
    code = report(kEtdumpInspect, reader.error());
    return false;
  }
  Result<inspect::EventSelector> selector =
      inspect::EventSelector::make(event_selection(options, true));
  if (!selector.ok()) {
    print_error(kEtdumpInspect, selector.error().message());
    code = kExitUsage;
    return false;
  }
  inspect::StatsReportOptions report_options;
  report_options.map = map;
  std::vector<inspect::DumpStats> dumps(1);
  dumps[0].path = path;
  const Error e =
      inspect::gather_dump_stats(*reader, &*selector, program, report_options, dumps[0]);
  if (!e.ok()) {
    code = report(kEtdumpInspect, e);
    return false;
  }
  out = inspect::stats_report(dumps, report_options);
  return true;
}

bool has_values(const inspect::Trace& trace) { return !trace.values.empty(); }

// The given buffer, else the one beside the dump when it exists, else none (no histograms).
bool open_buffer(const std::string& given, const std::string& dump_path,
                 std::optional<inspect::DebugBuffer>& buffer, int& code) {
  std::string path = given;
  if (path.empty()) {
    path = debug_buffer_path_for(dump_path);
    if (!std::filesystem::exists(path)) return true;
  }
  Result<inspect::DebugBuffer> r = inspect::DebugBuffer::open(path);
  if (!r.ok()) {
    code = report(kEtdumpInspect, r.error());
    return false;
  }
  buffer.emplace(std::move(r).get());
  return true;
}

inspect::DiffOptions diff_options(const ReportOptions& options, double min_time,
                                  const inspect::DebugMap* map) {
  inspect::DiffOptions d;
  d.threshold_pct = options.threshold;
  d.min_time_ns = min_time;
  d.statistic = *inspect::parse_diff_statistic(options.statistic);
  d.map_a = map;
  d.map_b = map;
  return d;
}

inspect::ReportOptions page_options(const ReportOptions& options) {
  inspect::ReportOptions r;
  r.iteration = options.iteration;
  r.method = options.method;
  r.max_spans = options.max_spans;
  return r;
}

std::string page_title(const std::vector<std::string>& paths) {
  std::string title = "etkit report: " + paths[0];
  if (paths.size() == 2) title += " vs " + paths[1];
  return title;
}

// The page written as it is made: the head, the data (escaped for the script element) from
// `data`, the tail; to stdout, or to a file renamed into place when complete.
int write_page(const std::string& output, const std::string& title,
               const std::function<Error(const inspect::ReportTextWriter&)>& data) {
  StreamedOutput out(output);
  const inspect::ReportTextWriter put = [&](std::string_view text) { out.write(text); };
  put(inspect::html_report_head(title));
  const Error e =
      data([&](std::string_view piece) { inspect::write_script_json(piece, put); });
  if (!e.ok()) return report(kEtdumpInspect, e);
  put(inspect::html_report_tail());
  const Error written = out.finish();
  if (!written.ok()) return report(kEtdumpInspect, written);
  return kExitOk;
}

// Without --program and --debug-map: each dump is read block by block, never joined whole
// (report_streamed.h, DESIGN.md section 5), and the values and compare tables are written
// straight into the page. Errors come in the joined path's order, all before the first byte.
int report_streamed(const ReportOptions& options, double min_time) {
  std::vector<inspect::TraceReader> readers;
  for (const std::string& path : options.dumps) {
    Result<inspect::TraceReader> reader = inspect::TraceReader::open(path);
    if (!reader.ok()) return report(kEtdumpInspect, reader.error());
    readers.push_back(std::move(reader).get());
    // One dump resident at a time: each pass maps its pages again.
    readers.back().release_pages();
  }
  const inspect::ReportOptions page = page_options(options);
  const inspect::EventSelection selection = event_selection(options, true);
  const size_t n = readers.size();
  std::vector<inspect::ReportFacts> facts(n);
  std::vector<inspect::ReportDumpPart> parts(n);
  std::vector<std::optional<inspect::DebugBuffer>> buffers(n);
  const inspect::DebugBuffer empty;
  std::vector<std::string> warnings;
  int code = kExitOk;
  for (size_t i = 0; i < n; ++i) {
    inspect::TraceReader& reader = readers[i];
    const inspect::Trace skeleton = reader.skeleton();
    if (std::string e = selection_error(skeleton, options); !e.empty()) {
      print_error(kEtdumpInspect, e);
      return kExitUsage;
    }
    inspect::ReportDumpPart& part = parts[i];
    part.path = skeleton.path;
    part.facts = &facts[i];
    Result<inspect::DumpInfo> info = inspect::dump_info(reader);
    if (!info.ok()) return report(kEtdumpInspect, info.error());
    part.info = std::move(info->tables);
    const Error e = inspect::gather_report_stats(reader, selection, facts[i], part.stats);
    if (!e.ok()) {
      print_error(kEtdumpInspect, e.message());
      return kExitUsage;
    }
    part.warnings = dump_warnings(skeleton);
    warnings.insert(warnings.end(), part.warnings.begin(), part.warnings.end());
    if (reader.has_values()) {
      if (!open_buffer(options.debug_buffer, skeleton.path, buffers[i], code)) return code;
      if (buffers[i]) {
        inspect::gather_report_histograms(reader, *buffers[i], page, facts[i]);
        buffers[i]->release_pages();
      }
      part.values = inspect::streamed_values_writer(reader, buffers[i] ? *buffers[i] : empty);
    }
    reader.release_pages();
  }
  // What the timelines ask for must be there before anything is written.
  for (size_t i = 0; i < n; ++i) {
    Result<inspect::ReportTimeline> timeline =
        inspect::streamed_report_timeline(readers[i], selection, facts[i], page);
    if (!timeline.ok()) {
      print_error(kEtdumpInspect, timeline.error().message());
      return kExitUsage;
    }
    parts[i].timeline = std::move(timeline).get();
  }
  std::optional<inspect::ReportComparisonPart> comparison;
  if (n == 2) {
    inspect::Tolerance tolerance;
    tolerance.atol = options.atol;
    tolerance.rtol = options.rtol;
    Result<inspect::ReportComparisonPart> r = inspect::streamed_report_comparison(
        readers[0], readers[1], buffers[0] ? &*buffers[0] : nullptr,
        buffers[1] ? &*buffers[1] : nullptr, selection, event_selection(options, false),
        diff_options(options, min_time, nullptr), tolerance);
    if (!r.ok()) return report(kEtdumpInspect, r.error());
    comparison.emplace(std::move(r).get());
  }
  for (const std::string& w : warnings) print_warning(kEtdumpInspect, w);
  return write_page(options.output, page_title(options.dumps),
                    [&](const inspect::ReportTextWriter& write) {
                      return inspect::write_report_data(
                          parts, comparison ? &*comparison : nullptr, page, write);
                    });
}

// With --program or --debug-map: the dumps are joined whole and named first, so that naming
// errors come before anything else, as in the other subcommands.
int report_joined(const ReportOptions& options, double min_time) {
  int code = kExitOk;
  std::optional<inspect::DebugMap> map;
  if (!load_debug_map(options, map, code)) return code;
  const inspect::DebugMap* m = map ? &*map : nullptr;
  std::vector<inspect::Trace> traces;
  if (!load_dumps(options, 1, traces, code, m)) return code;
  std::optional<ProgramFile> program;
  if (!options.program.empty()) {
    Result<ProgramFile> file = ProgramFile::open(options.program);
    if (!file.ok()) return report(kEtdumpInspect, file.error());
    program.emplace(std::move(file).get());
  }

  std::vector<inspect::ReportDump> dumps(traces.size());
  std::vector<std::optional<inspect::DebugBuffer>> buffers(traces.size());
  std::vector<std::string> warnings;
  for (size_t i = 0; i < traces.size(); ++i) {
    inspect::ReportDump& d = dumps[i];
    d.trace = &traces[i];
    d.map = m;
    if (!select(traces[i], options, true, d.selected)) return kExitUsage;
    Result<inspect::DumpInfo> info = inspect::dump_info(traces[i].path);
    if (!info.ok()) return report(kEtdumpInspect, info.error());
    d.info = std::move(info->tables);
    if (!stats_tables(options, traces[i].path, program ? &program->program() : nullptr, m,
                      d.stats, code)) {
      return code;
    }
    d.warnings = dump_warnings(traces[i]);
    warnings.insert(warnings.end(), d.warnings.begin(), d.warnings.end());
    if (has_values(traces[i])) {
      if (!open_buffer(options.debug_buffer, traces[i].path, buffers[i], code)) return code;
      const inspect::DebugBuffer empty;
      const inspect::DebugBuffer& buffer = buffers[i] ? *buffers[i] : empty;
      d.values = {inspect::values_table(traces[i], buffer, {}, m)};
      d.buffer = buffers[i] ? &*buffers[i] : nullptr;
    }
  }

  std::optional<inspect::ReportComparison> comparison;
  if (traces.size() == 2) {
    comparison.emplace();
    const inspect::DiffResult diff = inspect::diff_traces(
        {&traces[0], dumps[0].selected}, {&traces[1], dumps[1].selected},
        diff_options(options, min_time, m));
    comparison->diff = {inspect::diff_table(diff, inspect::TimeUnit::Ms,
                                            "diff of " + traces[0].path + " (a) and " +
                                                traces[1].path + " (b)"),
                        inspect::diff_summary_table(diff)};
    comparison->diff_verdict = inspect::verdict_name(diff.verdict());
    if (has_values(traces[0]) && has_values(traces[1])) {
      // The values tables above list every value, as `values` does; the comparison takes the
      // iterations `compare` takes. Its copies keep the histograms' traces whole.
      std::vector<inspect::Trace> kept = {traces[0], traces[1]};
      for (inspect::Trace& t : kept) {
        inspect::keep_selected_values(t, event_selection(options, false));
      }
      const inspect::DebugBuffer empty;
      inspect::Tolerance tolerance;
      tolerance.atol = options.atol;
      tolerance.rtol = options.rtol;
      inspect::CompareResult r = inspect::compare_values(
          {&kept[0], buffers[0] ? &*buffers[0] : &empty, m},
          {&kept[1], buffers[1] ? &*buffers[1] : &empty, m}, tolerance, {});
      inspect::Table summary = inspect::compare_summary_table(r);
      comparison->compare_verdict = inspect::verdict_name(r.verdict(false));
      comparison->compare = {std::move(r.table), std::move(summary)};
    }
  }

  Result<std::string> data = inspect::report_data_json(
      dumps, comparison ? &*comparison : nullptr, page_options(options));
  if (!data.ok()) {
    print_error(kEtdumpInspect, data.error().message());
    return kExitUsage;
  }
  for (const std::string& w : warnings) print_warning(kEtdumpInspect, w);
  return write_page(options.output, page_title(options.dumps),
                    [&](const inspect::ReportTextWriter& write) {
                      write(*data);
                      return Error();
                    });
}

int run_report(const ReportOptions& options) {
  for (const std::string& d : options.dumps) {
    if (d == "-") {
      print_error(kEtdumpInspect, "report: reads its dumps twice; give a file, not - (stdin)");
      return kExitUsage;
    }
  }
  if (options.dumps.size() == 2 && !options.debug_buffer.empty()) {
    print_error(kEtdumpInspect,
                "report: --debug-buffer is for one dump; two dumps use the buffers beside them");
    return kExitUsage;
  }
  Result<double> min_time = inspect::parse_duration_ns(options.min_time);
  if (!min_time.ok()) {
    print_error(kEtdumpInspect, std::string("--min-time: ") + min_time.error().message());
    return kExitUsage;
  }
  if (options.program.empty() && options.debug_map.empty()) {
    return report_streamed(options, *min_time);
  }
  return report_joined(options, *min_time);
}

}  // namespace

Subcommand add_report(CLI::App& app) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Write one self-contained HTML page of a dump (timeline, top operators, "
                "distributions, delegates, values), or of two with their comparison");
  cmd->add_option("dumps", options->dumps, "ETDump file, or dumps A (baseline) and B")
      ->required()
      ->expected(1, 2);
  cmd->add_option("-o,--output", options->output, "Output file; - for stdout (the default)");
  cmd->add_option("--iteration", options->iteration,
                  "Timeline of measured iteration K (default: the median one)")
      ->check(at_least(0, true));
  cmd->add_option("--max-spans", options->max_spans,
                  "Timeline spans kept per dump, the longest (default 20000)")
      ->check(at_least(1, true));
  cmd->add_option("--method", options->method, "Only blocks of method NAME");
  add_iteration_flags(*cmd, *options);
  add_program_flag(*cmd, *options);
  add_debug_map_flag(*cmd, *options);
  cmd->add_option("--debug-buffer", options->debug_buffer,
                  "Debug buffer of the dump (default NAME.debug.bin beside it)");
  cmd->add_option("--threshold", options->threshold,
                  "Two dumps: slowdown in percent that is a regression, as diff (default 10)")
      ->check(at_least(0, false));
  cmd->add_option("--min-time", options->min_time,
                  "Two dumps: smallest slowdown that is a regression, as diff (default 0)");
  cmd->add_option("--statistic", options->statistic,
                  "Two dumps: statistic compared, as diff: median, mean or min (default median)")
      ->check(CLI::IsMember({"median", "mean", "min"}));
  cmd->add_option("--atol", options->atol,
                  "Two dumps: absolute tolerance, as compare (default 1e-8)")
      ->check(at_least(0, false));
  cmd->add_option("--rtol", options->rtol,
                  "Two dumps: relative tolerance, as compare (default 1e-5)")
      ->check(at_least(0, false));
  return {cmd, [options]() { return run_report(*options); }};
}

}  // namespace etkit::tools
