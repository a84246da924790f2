#pragma once

// The data of `etdump-inspect report`'s HTML page (html_report.h), as one JSON document: the page
// embeds it as a JSON island (`<script type="application/json" id="etkit-data">`) that its
// script renders and that tests read, so that goldens never depend on markup.
//
// The tables are the library's own rows, given by the caller exactly as the text and JSON
// printers get them (`stats_report`, `dump_info`, `diff_table`, `compare_values`,
// `values_table`), and embedded as `render(tables, Format::Json)` renders them: the page's numbers
// are those of `stats --format json`, `diff --format json`, ... Beside them, computed here from the
// trace, joined whole or a block at a time (`ReportFacts`, `report_timeline`):
//   - `iterations`: per method, each measured complete iteration's time (the span of its host
//     events, first start to last end) with p50 and p90 (`percentile`), in ns;
//   - `timeline`: the spans of one iteration (`ReportOptions::iteration`, else the median one: the
//     lower median of the iteration times, ties by iteration), start relative to the iteration's
//     first event, on tracks `host`, `delegate` (delegate events) and `device:<name>`; beyond
//     `max_spans` only the longest are kept (ties: file order) and the rest are summed per name in
//     `omitted`, which the page says;
//   - `distribution`: per operator (the `max_operators` with the most total time), its time in each
//     measured iteration (the sum of its instructions' outermost events), at most `max_samples`
//     iterations (evenly spaced, first and last kept; `sampled` says so);
//   - `delegates`: the delegate events of the timeline's iteration with their debug handles and
//     node names (with a debug map);
//   - `histograms`: for the first `max_histograms` readable tensor values (in the order of the
//     values table), `kHistogramBins` bins of their finite elements between min and max.
// Everything is deterministic: the same inputs give the same bytes.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/inspect/debug_buffer.h"
#include "etkit/inspect/debug_map.h"
#include "etkit/inspect/table.h"
#include "etkit/inspect/trace.h"

namespace etkit::inspect {

/// Bins of each value histogram.
inline constexpr size_t kHistogramBins = 20;

/// What the page shows and how much of it.
struct ReportOptions {
  int64_t iteration = -1;        ///< Timeline iteration (measured, 0-based); -1: the median one.
  std::string method;            ///< Timeline method; empty: the first one with executions.
  size_t max_spans = 20000;      ///< Timeline spans kept per dump.
  size_t max_operators = 30;     ///< Operators in the distribution.
  size_t max_samples = 2000;     ///< Iterations per operator in the distribution.
  size_t max_histograms = 64;    ///< Tensor values with a histogram.
};

/// One dump of the report and the tables printed for it. Pointers must outlive the call.
struct ReportDump {
  const Trace* trace = nullptr;
  std::vector<size_t> selected;       ///< Its selected events (executions, complete blocks).
  const DebugMap* map = nullptr;      ///< Names delegate nodes; may be null.
  const DebugBuffer* buffer = nullptr;  ///< For histograms; may be null (no histograms).
  std::vector<Table> info;    ///< `dump_info`'s tables.
  std::vector<Table> stats;   ///< `stats_report`'s tables, as `stats DUMP` prints them.
  std::vector<Table> values;  ///< `values_table`, when the dump logged values (else empty).
  std::vector<std::string> warnings;  ///< With the path, as the printers get them.
};

/// The comparison of two dumps (empty tables: not shown).
struct ReportComparison {
  std::vector<Table> diff;     ///< `diff_table` and `diff_summary_table`.
  std::vector<Table> compare;  ///< `compare_values`'s table and `compare_summary_table`.
  std::string diff_verdict;    ///< `verdict_name` of the diff; empty without a diff.
  std::string compare_verdict;
};

/// The report's JSON document: `{"etkit_report": 1, "dumps": [...], "comparison": {...}}`
/// (comparison only for two dumps), compact (no whitespace between tokens); a dump without a
/// measured complete iteration has a null `timeline` unless `options` asks for an iteration or a
/// method. Errors: `InvalidArgument` naming the dump when `options.iteration` or
/// `options.method` names no measured complete iteration of it. The joined path: the same bytes
/// as `write_report_data` of the same dumps read block by block.
Result<std::string> report_data_json(const std::vector<ReportDump>& dumps,
                                     const ReportComparison* comparison,
                                     const ReportOptions& options);

// The report written in pieces, from dumps read block by block (`etdump-inspect report` without
// --program and --debug-map): the small facts of each dump are gathered in one pass
// (`ReportFacts`), the timeline's block is joined alone (`report_timeline`), and the large tables
// (values, compare) are written straight into the output by the caller's writers.

/// Receives text in pieces.
using ReportTextWriter = std::function<void(std::string_view)>;

/// The timeline's iteration of a dump: its method and block, and its span (first start to last
/// end of its selected host events), in ns.
struct ReportIteration {
  std::string method;
  uint32_t block = 0;
  uint32_t iteration = 0;
  double start_ns = 0, end_ns = 0;
};

/// What the page shows of a dump beside its tables and timeline, gathered a block at a time:
/// the measured complete iterations, the distribution per operator and the value histograms.
/// Holds per measured block one span, and per operator one time; not thread-safe.
class ReportFacts {
 public:
  /// Adds block `b` of `trace` (which holds it joined), `selected` being its selected events
  /// (ascending indices into `trace.events`). Blocks in ascending order, each at most once.
  void add_block(const Trace& trace, size_t b, std::span<const size_t> selected);
  /// Adds the histograms of `trace.values` in their order, up to `options.max_histograms` in
  /// all; the values of each block once, blocks in ascending order.
  void add_histograms(const Trace& trace, const DebugBuffer& buffer,
                      const ReportOptions& options);
  /// Whether `add_histograms` can add no more.
  bool histograms_full(const ReportOptions& options) const;
  /// The timeline's iteration: `options.iteration` of `options.method` (else of the first method
  /// in block order), else the lower median of its iteration times (ties by iteration); none
  /// when nothing was measured and nothing is asked for. Errors: `InvalidArgument` naming `path`
  /// when what is asked for is not there.
  Result<std::optional<ReportIteration>> timeline_iteration(const std::string& path,
                                                            const ReportOptions& options) const;

  /// The JSON texts of `iterations`, `distribution` and `histograms` (compact).
  std::string iterations_json() const;
  std::string distribution_json(const ReportOptions& options) const;
  std::string histograms_json() const { return "[" + histograms_ + "]"; }

 private:
  struct Span {
    uint32_t block = 0;
    uint32_t iteration = 0;
    double start_ns = 0, end_ns = 0;
  };
  struct Op {
    std::string key;  // method:operator
    std::vector<double> times;  // per measured block that has it, in block order
    double total = 0;
  };
  std::map<std::string, std::vector<Span>> methods_;
  std::vector<Op> ops_;
  std::map<std::string, size_t> op_index_;
  std::string histograms_;  // the array's items, comma-separated
  size_t histogram_count_ = 0;
};

/// The timeline and delegates of one dump, as JSON texts (`null` and `[]` when none).
struct ReportTimeline {
  std::string timeline = "null";
  std::string delegates = "[]";
};

/// The timeline of `iteration` from `events`, the selected events of its block in `trace`
/// (ascending indices), with debug handles and node names through `map` (may be null).
ReportTimeline report_timeline(const Trace& trace, std::span<const size_t> events,
                               const DebugMap* map, const ReportIteration& iteration,
                               const ReportOptions& options);

/// The options of every table document a report embeds: `--format json`'s, compact.
RenderOptions report_json_options();

/// Writes a JSON document of tables, as `render(tables, Format::Json, report_json_options())`
/// writes it (the report embeds it as it comes), through its argument.
using ReportTablesWriter = std::function<Error(const ReportTextWriter&)>;

/// One dump of `write_report_data`. `facts` must outlive the call.
struct ReportDumpPart {
  std::string path;
  std::vector<Table> info;            ///< `dump_info`'s tables.
  std::vector<Table> stats;           ///< `stats_report`'s tables.
  std::vector<std::string> warnings;  ///< Carried by the stats document, with the path.
  const ReportFacts* facts = nullptr;
  ReportTimeline timeline;
  ReportTablesWriter values;  ///< The values tables; empty when the dump logged none.
};

/// The comparison of `write_report_data`.
struct ReportComparisonPart {
  /// Writes the diff tables (`diff_table` and `diff_summary_table`, as `write_diff_tables`
  /// writes them).
  ReportTablesWriter diff;
  std::string diff_verdict;  ///< `verdict_name` of the diff.
  /// Writes the compare tables (`compare_values`'s table and its summary) and returns the
  /// verdict's name; empty when a dump logged no values (no comparison of values).
  std::function<Result<std::string>(const ReportTextWriter&)> compare;
};

/// Writes the report's JSON document (`report_data_json`'s bytes) through `write`, in pieces:
/// the tables of `values` and `compare` go straight from their writers into the output.
/// Errors: those of the writers (after part of the document was written).
Error write_report_data(const std::vector<ReportDumpPart>& dumps,
                        const ReportComparisonPart* comparison, const ReportOptions& options,
                        const ReportTextWriter& write);

}  // namespace etkit::inspect
