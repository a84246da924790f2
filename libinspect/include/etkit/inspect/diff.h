#pragma once

// Differences between two dumps, for `etdump-inspect diff` in CI: for every event, a statistic
// of its latency over all its samples (iterations) in A and in B (the median by default), the
// absolute and relative delta, and a status.
//
// Matching. An event is identified by its method (B's through a method map, method_map.h),
// instruction (-1 outside one) and name, as ExecuTorch's Inspector identifies events across
// runs, and must be the same operator on both sides: an instruction whose operator changed
// (A's `relu.out` where B has `addmm.out`) is a structural difference naming both, not compared.
// With a debug map for each side (`DiffOptions::map_a`, `map_b`), the events that stand for
// debug handles match by handle instead: the outermost event of a kernel instruction and every
// delegate event count under the handles they stand for (`event_debug_handles`); handles that
// one event of either side stands for together form one group (a fused step {1, 2} against the
// portable handles 1 and 2), and a group's sample in a block is the sum of its events there. So
// a portable run and a delegated one compare operation by operation whatever their
// instructions. The other events (the method's, a DelegateCall's own, ones the maps name no
// handle for) match by name as above; the events nested in a matched instruction are left out.
//
// Verdict (verdict.h). An event is a regression when B's statistic exceeds A's by more than
// `threshold_pct` percent AND by more than `min_time_ns`; an improvement symmetrically. An event
// with fewer than `min_samples` samples on either side is not judged (status `few_samples`).
// Events present in only one dump, and changed operators, are structural differences. The diff
// fails on a regression or a structural difference, and is incomplete when no event was judged
// (the dumps share nothing, or every match has too few samples): never a pass.
//
// Two ways in: `diff_traces` over joined traces, and `diff_dumps` over two `TraceReader`s,
// joined one block at a time (matching by name only), which keeps per matched event only its
// samples' durations and its operator, and gives the same result bit for bit.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/inspect/stats.h"
#include "etkit/inspect/table.h"
#include "etkit/inspect/trace.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/debug_map.h"
#include "etkit/inspect/method_map.h"
#include "etkit/inspect/verdict.h"

namespace etkit::inspect {

class ReportStream;  // report_stream.h

/// The statistic of an event's samples that is compared.
enum class DiffStatistic { Median, Mean, Min };
/// Parses "median", "mean" or "min". Errors: `InvalidArgument`.
Result<DiffStatistic> parse_diff_statistic(std::string_view text);
/// "p50", "mean" or "min": the prefix of the table's columns (p50_a, p50_b, ...).
const char* diff_statistic_column(DiffStatistic statistic);

/// What counts as a regression, and how events are matched.
struct DiffOptions {
  double threshold_pct = 10;  ///< Relative slowdown of the statistic, in percent.
  double min_time_ns = 0;     ///< Absolute slowdown of the statistic, in nanoseconds.
  DiffStatistic statistic = DiffStatistic::Median;
  size_t min_samples = 1;     ///< Fewer samples on either side: not judged (`few_samples`).
  MethodMap methods;          ///< B's methods matched under A's names.
  /// Debug maps of A and B (both or neither; they must outlive the call): match by handle.
  const DebugMap* map_a = nullptr;
  const DebugMap* map_b = nullptr;
};

/// How an event compares.
enum class DiffStatus { Same, Regression, Improvement, OnlyA, OnlyB, OpChanged, FewSamples };

/// "ok" (within the thresholds), "regression", "improvement", "only_a", "only_b",
/// "op_changed", "few_samples".
const char* diff_status_name(DiffStatus status);

/// One event's comparison; times in nanoseconds (0 on the side where it is missing).
struct DiffRow {
  std::string method;
  int32_t instruction = -1;
  std::string name;
  std::string op;    ///< A's operator (empty when only in B).
  std::string op_b;  ///< B's operator (empty when only in A).
  /// Matched by debug handle: the group's handles (ascending) and their node names ("a,b");
  /// `name` is then the nodes too and `instruction` -1. Empty otherwise.
  std::vector<uint32_t> handles;
  size_t count_a = 0, count_b = 0;
  double stat_a = 0, stat_b = 0;  ///< The statistic of A's and B's samples.
  double delta = 0;      ///< stat_b - stat_a.
  double delta_pct = 0;  ///< 100 * delta / stat_a; 0 when stat_a is 0.
  DiffStatus status = DiffStatus::Same;
};

/// All rows (ordered by method, instruction, name; groups of handles after the events matched
/// by name) and the counts of each status.
struct DiffResult {
  std::vector<DiffRow> rows;
  DiffStatistic statistic = DiffStatistic::Median;
  bool by_handle = false;  ///< Matched by debug handle (the table has `debug_handles`).
  size_t judged = 0;       ///< Rows on both sides with enough samples (ok, regression, improvement).
  size_t regressions = 0, improvements = 0, only_a = 0, only_b = 0, op_changed = 0,
         few_samples = 0;
  /// True when there is a regression or a structural difference (only in one, op changed).
  bool failed() const { return regressions > 0 || only_a > 0 || only_b > 0 || op_changed > 0; }
  /// Incomplete when nothing was judged, even if structural differences were found.
  Verdict verdict() const {
    if (judged == 0) return Verdict::Incomplete;
    return failed() ? Verdict::Fail : Verdict::Pass;
  }
};

/// Compares the selected events of `a` and `b` (see the file comment).
DiffResult diff_traces(const TraceSelection& a, const TraceSelection& b,
                       const DiffOptions& options);

/// `diff_traces` of the events `select_a` selects in `a` and `select_b` in `b` (B's blocks
/// selected by their own method names, then matched under `options.methods`), without holding
/// either joined trace: each dump is joined one block at a time (`TraceReader::join_block`, the
/// block dropped before the next) and only each matched event's durations (8 bytes a sample)
/// and operator are kept; once a side is read its reader's pages are released
/// (`TraceReader::release_pages`), so one dump at a time is resident. The rows, statistics (a
/// median or minimum of the same samples, a mean summed in the same order) and counts are those
/// of `diff_traces` on `load_trace`'s traces and `select_events`' selections, bit for bit.
/// Matches by name only, with the dumps' own operators (from `native_call_` events):
/// `options.map_a` and `map_b` must be null. Errors: `InvalidArgument` for a `--name` regex
/// that does not compile (`select_events`' message) or for debug maps.
Result<DiffResult> diff_dumps(TraceReader& a, TraceReader& b, const EventSelection& select_a,
                              const EventSelection& select_b, const DiffOptions& options);

/// The rows as a table: method, instruction, [debug_handles when matched by handle,] name, op,
/// op_b, count_a, count_b, p50_a, p50_b (mean_a, mean_b or min_a, min_b for those statistics),
/// delta, delta_pct, status.
Table diff_table(const DiffResult& result, TimeUnit unit, std::string title);

/// `diff_table` without its rows: name, title, unit and columns.
Table diff_table_head(const DiffResult& result, TimeUnit unit, std::string title);

/// The rows of `diff_table`, each handed to `visit` with its cells borrowed from `result`: for
/// writers that stream a table instead of holding it (`render_streamed_refs`, `ReportStream`).
void diff_rows(const DiffResult& result, TimeUnit unit, const RowRefVisitor& visit);

/// Writes `diff_table` and `diff_summary_table` into `report` as `render` would write those two
/// tables, without holding the first: its rows come from `result` as they are written (a
/// `Table` keeps about 1 KB a row, 20 MB for a diff of 10,000 instructions). Errors: those of
/// `ReportStream::table`.
Error write_diff_tables(const DiffResult& result, TimeUnit unit, std::string title,
                        ReportStream& report);

/// One row: judged, regressions, improvements, op_changed, only_a, only_b, few_samples, result
/// (`verdict_name(result.verdict())`).
Table diff_summary_table(const DiffResult& result);

/// Why the diff is incomplete, for a diagnostic ("" when it is not): no method in common, or
/// every matched event with fewer than `min_samples` samples. Only the blocks of `a` and `b` are
/// read (their methods), so a `TraceReader::skeleton()` serves as well as the joined
/// trace.
std::string diff_incomplete_text(const DiffResult& result, const Trace& a, const Trace& b,
                                 const DiffOptions& options);

/// Parses a duration with its unit: "0", "250ns", "10us", "1.5ms", "2s". Errors:
/// `InvalidArgument` ("bad duration '10': expected a number with a unit: ns, us, ms or s").
Result<double> parse_duration_ns(std::string_view text);

}  // namespace etkit::inspect
