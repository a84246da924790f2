#pragma once

// The data of `etdump-inspect report`'s HTML page (html_report.h), as one JSON document: the page
// embeds it as a JSON island (`<script type="application/json" id="etkit-data">`) that its
// script renders and that tests read, so that goldens never depend on markup.
//
// The tables are the library's own rows, given by the caller exactly as the text and JSON
// printers get them (`stats_report`, `dump_info`, `diff_table`, `compare_values`,
// `values_table`), and embedded as `render(tables, Format::Json)` renders them: the page's numbers
// are those of `stats --format json`, `diff --format json`, ... Beside them, computed here from the
// joined trace:
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
#include <string>
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
/// (comparison only for two dumps); a dump without a measured complete iteration has a null
/// `timeline` unless `options` asks for an iteration or a method. Errors: `InvalidArgument` naming the dump when
/// `options.iteration` or `options.method` names no measured complete iteration of it.
Result<std::string> report_data_json(const std::vector<ReportDump>& dumps,
                                     const ReportComparison* comparison,
                                     const ReportOptions& options);

}  // namespace etkit::inspect
