#pragma once

// The statistics of a series of measured durations, as trace-run reports them for its timed
// iterations and for each method of a --call sequence: count, mean, standard deviation, min,
// p50, p90, p99 and max (what benchmark_model and onnxruntime_perf_test report), and the text
// line that shows them in one readable unit.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "etkit/inspect/time_unit.h"

namespace etkit::inspect {

/// Statistics of durations in nanoseconds. All zero when `count` is 0.
struct TimingSummary {
  size_t count = 0;
  double mean_ns = 0;
  /// Population standard deviation (divided by count, as benchmark_model's), two-pass.
  double std_ns = 0;
  double min_ns = 0;
  /// Percentiles by linear interpolation between the closest ranks (stats.h `percentile`).
  double p50_ns = 0;
  double p90_ns = 0;
  double p99_ns = 0;
  double max_ns = 0;
};

/// Summarizes `durations_ns` (any order). `scratch` receives a sorted copy; passing the same
/// vector again reuses its memory. Allocates only if `scratch` is smaller than the input.
TimingSummary summarize_durations(std::span<const double> durations_ns,
                                  std::vector<double>& scratch);

/// The unit a summary is shown in: `readable_time_unit` of its p50 (one unit for the line).
TimeUnit summary_time_unit(const TimingSummary& summary);

/// "mean 1.250 us, std 0.010 us, min 1.200 us, p50 1.250 us, p90 1.300 us, p99 1.400 us,
/// max 1.400 us", every value in `unit` with `time_decimals(unit)` decimals. Empty for a
/// summary of nothing.
std::string summary_text(const TimingSummary& summary, TimeUnit unit);

/// `ns` in `unit` with `time_decimals(unit)` decimals and the unit's name: "1.250 us".
std::string duration_text(double ns, TimeUnit unit);

}  // namespace etkit::inspect
