#pragma once

// Differences between two dumps, for `etdump-inspect diff` in CI: for every event, the median
// latency over all iterations in A and in B, the absolute and relative delta, and a status.
//
// An event is identified by its method, instruction (-1 outside one) and name, as ExecuTorch's
// Inspector identifies events across runs. An event is a regression when B's median exceeds A's
// by more than `threshold_pct` percent AND by more than `min_time_ns`; an improvement
// symmetrically. Events present in only one dump are structural differences.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/inspect/stats.h"
#include "etkit/inspect/table.h"
#include "etkit/inspect/trace.h"

namespace etkit::inspect {

/// What counts as a regression.
struct DiffOptions {
  double threshold_pct = 10;  ///< Relative slowdown of the median, in percent.
  double min_time_ns = 0;     ///< Absolute slowdown of the median, in nanoseconds.
};

/// How an event compares.
enum class DiffStatus { Same, Regression, Improvement, OnlyA, OnlyB };

/// "ok" (within the thresholds), "regression", "improvement", "only_a", "only_b".
const char* diff_status_name(DiffStatus status);

/// One event's comparison; times in nanoseconds (0 on the side where it is missing).
struct DiffRow {
  std::string method;
  int32_t instruction = -1;
  std::string name;
  std::string op;
  size_t count_a = 0, count_b = 0;
  double p50_a = 0, p50_b = 0;
  double delta = 0;      ///< p50_b - p50_a.
  double delta_pct = 0;  ///< 100 * delta / p50_a; 0 when p50_a is 0.
  DiffStatus status = DiffStatus::Same;
};

/// All rows (ordered by method, instruction, name) and the counts of each status.
struct DiffResult {
  std::vector<DiffRow> rows;
  size_t regressions = 0, improvements = 0, only_a = 0, only_b = 0;
  /// True when there is a regression or an event present in only one dump.
  bool failed() const { return regressions > 0 || only_a > 0 || only_b > 0; }
};

/// Compares the selected events of `a` and `b`.
DiffResult diff_traces(const TraceSelection& a, const TraceSelection& b,
                       const DiffOptions& options);

/// The rows as a table: method, instruction, name, op, count_a, count_b, p50_a, p50_b, delta,
/// delta_pct, status.
Table diff_table(const DiffResult& result, TimeUnit unit, std::string title);

/// One row: regressions, improvements, only_a, only_b, result ("pass" or "fail").
Table diff_summary_table(const DiffResult& result);

/// Parses a duration with its unit: "0", "250ns", "10us", "1.5ms", "2s". Errors:
/// `InvalidArgument` ("bad duration '10': expected a number with a unit: ns, us, ms or s").
Result<double> parse_duration_ns(std::string_view text);

}  // namespace etkit::inspect
