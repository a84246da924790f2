#include "etkit/inspect/report_streamed.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "etkit/host/debug_buffer_path.h"
#include "etkit/inspect/dump_info.h"
#include "etkit/inspect/stats_report.h"
#include "etkit/inspect/values.h"
#include "etkit/inspect/verdict.h"
#include "report_reference.h"
#include "streamed_dumps.h"

namespace etkit::inspect {
namespace {

// The selections of `etdump-inspect report`: executions of complete blocks for the events, and
// for the values compared, every block (warm-up as asked).
EventSelection event_choice(bool include_warmup) {
  EventSelection s;
  s.include_load = false;
  s.complete_only = true;
  s.include_warmup = include_warmup;
  return s;
}

EventSelection value_choice(bool include_warmup) {
  EventSelection s;
  s.include_warmup = include_warmup;
  return s;
}

struct Dump {
  std::string path;
  std::optional<DebugBuffer> buffer;  // the one beside the dump, when there is one
  std::vector<Table> info;
  std::vector<std::string> warnings;
};

Dump open_dump(const std::string& path) {
  Dump d;
  d.path = path;
  const std::string buffer = debug_buffer_path_for(path);
  if (std::filesystem::exists(buffer)) {
    Result<DebugBuffer> b = DebugBuffer::open(buffer);
    REQUIRE(b.ok());
    d.buffer.emplace(std::move(b).get());
  }
  Result<DumpInfo> info = dump_info(path);
  REQUIRE(info.ok());
  d.info = info->tables;
  Result<TraceReader> reader = TraceReader::open(path);
  REQUIRE(reader.ok());
  for (const std::string& w : trace_warnings(reader->skeleton())) {
    d.warnings.push_back(path + ": " + w);
  }
  return d;
}

// The report of the joined traces, as the tool made it before it streamed: `reference` from the
// old nlohmann document, `joined` from today's `report_data_json`.
struct Joined {
  Result<std::string> reference = Error(ErrorCode::Internal, "not made");
  Result<std::string> joined = Error(ErrorCode::Internal, "not made");
};

Joined joined_report(const std::vector<Dump>& dumps, bool include_warmup,
                     const ReportOptions& options) {
  const DebugBuffer empty;
  std::vector<Trace> traces;
  std::vector<ReportDump> report(dumps.size());
  for (size_t i = 0; i < dumps.size(); ++i) {
    Result<Trace> trace = load_trace(dumps[i].path);
    REQUIRE(trace.ok());
    traces.push_back(std::move(trace).get());
  }
  for (size_t i = 0; i < dumps.size(); ++i) {
    ReportDump& d = report[i];
    d.trace = &traces[i];
    Result<std::vector<size_t>> selected = select_events(traces[i], event_choice(include_warmup));
    REQUIRE(selected.ok());
    d.selected = *selected;
    d.info = dumps[i].info;
    Result<TraceReader> reader = TraceReader::open(dumps[i].path);
    REQUIRE(reader.ok());
    Result<EventSelector> selector = EventSelector::make(event_choice(include_warmup));
    REQUIRE(selector.ok());
    std::vector<DumpStats> stats(1);
    stats[0].path = dumps[i].path;
    REQUIRE(gather_dump_stats(*reader, &*selector, nullptr, {}, stats[0]).ok());
    d.stats = stats_report(stats, {});
    d.warnings = dumps[i].warnings;
    if (!traces[i].values.empty()) {
      d.values = {values_table(traces[i], dumps[i].buffer ? *dumps[i].buffer : empty, {})};
      d.buffer = dumps[i].buffer ? &*dumps[i].buffer : nullptr;
    }
  }
  std::optional<ReportComparison> comparison;
  if (dumps.size() == 2) {
    comparison.emplace();
    const DiffResult diff = diff_traces({&traces[0], report[0].selected},
                                        {&traces[1], report[1].selected}, DiffOptions());
    comparison->diff = {diff_table(diff, TimeUnit::Ms,
                                   "diff of " + dumps[0].path + " (a) and " + dumps[1].path +
                                       " (b)"),
                        diff_summary_table(diff)};
    comparison->diff_verdict = verdict_name(diff.verdict());
    if (!traces[0].values.empty() && !traces[1].values.empty()) {
      std::vector<Trace> kept = {traces[0], traces[1]};
      for (Trace& t : kept) keep_selected_values(t, value_choice(include_warmup));
      CompareResult r = compare_values(
          {&kept[0], dumps[0].buffer ? &*dumps[0].buffer : &empty, nullptr},
          {&kept[1], dumps[1].buffer ? &*dumps[1].buffer : &empty, nullptr}, Tolerance(), {});
      Table summary = compare_summary_table(r);
      comparison->compare_verdict = verdict_name(r.verdict(false));
      comparison->compare = {std::move(r.table), std::move(summary)};
    }
  }
  const ReportComparison* c = comparison ? &*comparison : nullptr;
  Joined out;
  out.reference = test::reference_report_data_json(report, c, options);
  out.joined = report_data_json(report, c, options);
  return out;
}

// The report streamed as etdump-inspect makes it without --program and --debug-map.
Result<std::string> streamed_report(const std::vector<Dump>& dumps, bool include_warmup,
                                    const ReportOptions& options) {
  const DebugBuffer empty;
  std::vector<TraceReader> readers;
  for (const Dump& d : dumps) {
    Result<TraceReader> reader = TraceReader::open(d.path);
    REQUIRE(reader.ok());
    readers.push_back(std::move(reader).get());
  }
  const size_t n = dumps.size();
  std::vector<ReportFacts> facts(n);
  std::vector<ReportDumpPart> parts(n);
  for (size_t i = 0; i < n; ++i) {
    ReportDumpPart& part = parts[i];
    part.path = dumps[i].path;
    part.facts = &facts[i];
    part.info = dumps[i].info;
    part.warnings = dumps[i].warnings;
    REQUIRE(gather_report_stats(readers[i], event_choice(include_warmup), facts[i], part.stats)
                .ok());
    if (readers[i].has_values()) {
      const DebugBuffer* buffer = dumps[i].buffer ? &*dumps[i].buffer : nullptr;
      if (buffer != nullptr) gather_report_histograms(readers[i], *buffer, options, facts[i]);
      part.values = streamed_values_writer(readers[i], buffer != nullptr ? *buffer : empty);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    Result<ReportTimeline> timeline =
        streamed_report_timeline(readers[i], event_choice(include_warmup), facts[i], options);
    if (!timeline.ok()) return timeline.error();
    parts[i].timeline = std::move(timeline).get();
  }
  std::optional<ReportComparisonPart> comparison;
  if (n == 2) {
    Result<ReportComparisonPart> c = streamed_report_comparison(
        readers[0], readers[1], dumps[0].buffer ? &*dumps[0].buffer : nullptr,
        dumps[1].buffer ? &*dumps[1].buffer : nullptr, event_choice(include_warmup),
        value_choice(include_warmup), DiffOptions(), Tolerance());
    REQUIRE(c.ok());
    comparison.emplace(std::move(c).get());
  }
  std::string out;
  const Error e = write_report_data(parts, comparison ? &*comparison : nullptr, options,
                                    [&](std::string_view piece) { out += piece; });
  if (!e.ok()) return e;
  return out;
}

void check_same(const std::vector<Dump>& dumps, bool include_warmup,
                const ReportOptions& options) {
  const Joined joined = joined_report(dumps, include_warmup, options);
  const Result<std::string> streamed = streamed_report(dumps, include_warmup, options);
  REQUIRE(joined.reference.ok() == joined.joined.ok());
  REQUIRE(joined.reference.ok() == streamed.ok());
  if (!streamed.ok()) {
    CHECK(std::string(joined.reference.error().message()) == streamed.error().message());
    CHECK(std::string(joined.joined.error().message()) == streamed.error().message());
    return;
  }
  CHECK(*joined.reference == *joined.joined);
  CHECK(*joined.reference == *streamed);
}

std::vector<ReportOptions> option_sets() {
  std::vector<ReportOptions> sets(4);
  sets[1].max_spans = 3;       // the rest summed per name
  sets[1].max_samples = 2;     // sampled distributions
  sets[1].max_histograms = 1;
  sets[1].max_operators = 2;
  sets[2].iteration = 1;       // asked for: an error where there is none
  sets[3].method = "forward";  // likewise
  return sets;
}

TEST_CASE("streamed report: the joined document's bytes on every fixture dump") {
  for (const std::string& path : test::fixture_dumps()) {
    const std::vector<Dump> dumps = {open_dump(path)};
    for (bool warmup : {false, true}) {
      for (const ReportOptions& options : option_sets()) {
        CAPTURE(path);
        CAPTURE(warmup);
        CAPTURE(options.max_spans);
        CAPTURE(options.iteration);
        CAPTURE(options.method);
        check_same(dumps, warmup, options);
      }
    }
  }
}

TEST_CASE("streamed report: the joined document's bytes on the fixture pairs") {
  const std::vector<std::string> paths = test::fixture_dumps();
  std::vector<Dump> opened;
  for (const std::string& p : paths) opened.push_back(open_dump(p));
  for (const auto& [a, b] : test::fixture_pairs(paths)) {
    CAPTURE(paths[a]);
    CAPTURE(paths[b]);
    // Each dump's buffers are its own; a pair of one dump reads it twice.
    const std::vector<Dump> pair = {open_dump(paths[a]), open_dump(paths[b])};
    check_same(pair, false, ReportOptions());
    if (a == b) check_same(pair, true, option_sets()[1]);
  }
}

}  // namespace
}  // namespace etkit::inspect
