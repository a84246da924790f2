#include "etkit/inspect/timing_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "etkit/inspect/stats.h"

namespace etkit::inspect {

TimingSummary summarize_durations(std::span<const double> durations_ns,
                                  std::vector<double>& scratch) {
  TimingSummary s;
  s.count = durations_ns.size();
  if (s.count == 0) return s;
  scratch.assign(durations_ns.begin(), durations_ns.end());
  std::sort(scratch.begin(), scratch.end());
  double sum = 0;
  for (double d : scratch) sum += d;
  s.mean_ns = sum / static_cast<double>(s.count);
  // Two passes: the sum of squared deviations does not cancel the way E[x^2] - E[x]^2 does.
  double squares = 0;
  for (double d : scratch) squares += (d - s.mean_ns) * (d - s.mean_ns);
  s.std_ns = std::sqrt(squares / static_cast<double>(s.count));
  s.min_ns = scratch.front();
  s.max_ns = scratch.back();
  s.p50_ns = percentile(scratch, 50);
  s.p90_ns = percentile(scratch, 90);
  s.p99_ns = percentile(scratch, 99);
  return s;
}

TimeUnit summary_time_unit(const TimingSummary& summary) {
  return readable_time_unit(summary.p50_ns);
}

std::string duration_text(double ns, TimeUnit unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", time_decimals(unit), from_ns(ns, unit),
                time_unit_name(unit));
  return buf;
}

std::string summary_text(const TimingSummary& summary, TimeUnit unit) {
  if (summary.count == 0) return "";
  const std::pair<const char*, double> fields[] = {
      {"mean", summary.mean_ns}, {"std", summary.std_ns}, {"min", summary.min_ns},
      {"p50", summary.p50_ns},   {"p90", summary.p90_ns}, {"p99", summary.p99_ns},
      {"max", summary.max_ns}};
  std::string text;
  for (const auto& [name, ns] : fields) {
    if (!text.empty()) text += ", ";
    text += std::string(name) + " " + duration_text(ns, unit);
  }
  return text;
}

}  // namespace etkit::inspect
