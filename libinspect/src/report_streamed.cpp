#include "etkit/inspect/report_streamed.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "etkit/inspect/diff.h"
#include "etkit/inspect/report_stream.h"
#include "etkit/inspect/stats_report.h"
#include "etkit/inspect/values.h"
#include "etkit/inspect/verdict.h"

namespace etkit::inspect {

namespace {

const DebugBuffer& empty_buffer() {
  static const DebugBuffer kEmpty;
  return kEmpty;
}

}  // namespace

Error gather_report_stats(TraceReader& reader, const EventSelection& selection,
                          ReportFacts& facts, std::vector<Table>& stats) {
  ETKIT_ASSIGN_OR_RETURN(EventSelector selector, EventSelector::make(selection));
  const StatsReportOptions options;
  std::vector<DumpStats> dumps(1);
  dumps[0].path = reader.skeleton().path;
  ETKIT_TRY(gather_dump_stats(
      reader, &selector, nullptr, options, dumps[0],
      [&](const Trace& trace, size_t b, const std::vector<size_t>& selected) {
        facts.add_block(trace, b, selected);
      }));
  stats = stats_report(dumps, options);
  return Error();
}

void gather_report_histograms(TraceReader& reader, const DebugBuffer& buffer,
                              const ReportOptions& options, ReportFacts& facts) {
  Trace trace = reader.skeleton();
  for (size_t b = 0; b < trace.blocks.size() && !facts.histograms_full(options); ++b) {
    if (!reader.block_summary(b).tensor_values) continue;
    reader.rejoin_block(b, trace);
    facts.add_histograms(trace, buffer, options);
  }
}

Result<ReportTimeline> streamed_report_timeline(TraceReader& reader,
                                                const EventSelection& selection,
                                                const ReportFacts& facts,
                                                const ReportOptions& options) {
  Trace trace = reader.skeleton();
  ETKIT_ASSIGN_OR_RETURN(std::optional<ReportIteration> iteration,
                         facts.timeline_iteration(trace.path, options));
  if (!iteration) return ReportTimeline();
  ETKIT_ASSIGN_OR_RETURN(EventSelector selector, EventSelector::make(selection));
  reader.rejoin_events(iteration->block, trace);
  std::vector<size_t> selected;
  selector.select_block(trace, iteration->block, selected);
  return report_timeline(trace, selected, nullptr, *iteration, options);
}

ReportTablesWriter streamed_values_writer(TraceReader& reader, const DebugBuffer& buffer) {
  return [&reader, &buffer](const ReportTextWriter& write) {
    const Error e = write_values_table(reader, buffer, {}, Format::Json, report_json_options(), write);
    reader.release_pages();
    buffer.release_pages();
    return e;
  };
}

Result<ReportComparisonPart> streamed_report_comparison(
    TraceReader& a, TraceReader& b, const DebugBuffer* buffer_a, const DebugBuffer* buffer_b,
    const EventSelection& selection, const EventSelection& value_selection,
    const DiffOptions& diff_options, const Tolerance& tolerance) {
  ReportComparisonPart part;
  const Trace skeleton_a = a.skeleton();
  const Trace skeleton_b = b.skeleton();
  ETKIT_ASSIGN_OR_RETURN(DiffResult result, diff_dumps(a, b, selection, selection, diff_options));
  part.diff_verdict = verdict_name(result.verdict());
  // The rows are written from the result when the page gets to them, not held as a table.
  auto diff = std::make_shared<const DiffResult>(std::move(result));
  part.diff = [diff, title = "diff of " + skeleton_a.path + " (a) and " + skeleton_b.path +
                             " (b)"](const ReportTextWriter& write) {
    ReportStream report(Format::Json, report_json_options(), write);
    ETKIT_TRY(write_diff_tables(*diff, TimeUnit::Ms, title, report));
    report.finish();
    return Error();
  };
  if (!a.has_values() || !b.has_values()) return part;
  // The sources, shared by the writer (which may be copied).
  auto sources = std::make_shared<std::pair<StreamedValueSource, StreamedValueSource>>();
  for (auto [source, reader, skeleton, buffer] :
       {std::tuple(&sources->first, &a, &skeleton_a, buffer_a),
        std::tuple(&sources->second, &b, &skeleton_b, buffer_b)}) {
    source->reader = reader;
    source->buffer = buffer != nullptr ? buffer : &empty_buffer();
    source->blocks.resize(skeleton->blocks.size());
    for (size_t k = 0; k < skeleton->blocks.size(); ++k) {
      source->blocks[k] = block_selected(*skeleton, k, value_selection);
    }
  }
  part.compare = [sources, tolerance](const ReportTextWriter& write) -> Result<std::string> {
    ETKIT_ASSIGN_OR_RETURN(CompareCounts counts,
                           write_compare(sources->first, sources->second, tolerance, {}, false,
                                         Format::Json, report_json_options(), write));
    return std::string(verdict_name(counts.verdict(false)));
  };
  return part;
}

}  // namespace etkit::inspect
