#include "etkit/inspect/timing_summary.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

namespace etkit::inspect {
namespace {

TEST_CASE("timing summary: statistics of five durations, by hand") {
  // Sorted: 1 2 3 4 10; mean 4; squared deviations 9 4 1 0 36 = 50, population std sqrt(10).
  const std::vector<double> d = {4, 1, 3, 2, 10};
  std::vector<double> scratch;
  const TimingSummary s = summarize_durations(d, scratch);
  CHECK(s.count == 5);
  CHECK(s.mean_ns == 4);
  CHECK(s.std_ns == doctest::Approx(std::sqrt(10.0)));
  CHECK(s.min_ns == 1);
  CHECK(s.max_ns == 10);
  CHECK(s.p50_ns == 3);                          // rank 0.5 * 4 = 2
  CHECK(s.p90_ns == doctest::Approx(7.6));       // rank 3.6: 4 + 0.6 * (10 - 4)
  CHECK(s.p99_ns == doctest::Approx(9.76));      // rank 3.96: 4 + 0.96 * 6
  CHECK(d[0] == 4);                              // the input is not reordered
  CHECK(summary_time_unit(s) == TimeUnit::Ns);
  CHECK(summary_text(s, TimeUnit::Ns) ==
        "mean 4 ns, std 3 ns, min 1 ns, p50 3 ns, p90 8 ns, p99 10 ns, max 10 ns");
}

TEST_CASE("timing summary: one value, nothing, and the unit follows p50") {
  std::vector<double> scratch;
  const std::vector<double> one = {2500};
  const TimingSummary s = summarize_durations(one, scratch);
  CHECK(s.count == 1);
  CHECK(s.std_ns == 0);
  CHECK(s.p99_ns == 2500);
  CHECK(summary_time_unit(s) == TimeUnit::Us);
  CHECK(duration_text(s.p50_ns, TimeUnit::Us) == "2.500 us");
  CHECK(duration_text(3.25e6, readable_time_unit(3.25e6)) == "3.250000 ms");

  const TimingSummary none = summarize_durations({}, scratch);
  CHECK(none.count == 0);
  CHECK(none.max_ns == 0);
  CHECK(summary_text(none, TimeUnit::Us).empty());
}

TEST_CASE("timing summary: the scratch vector is reused, not grown, for a smaller series") {
  std::vector<double> scratch;
  std::vector<double> big(100, 1.0);
  (void)summarize_durations(big, scratch);
  const double* data = scratch.data();
  const std::vector<double> small = {3, 1, 2};
  const TimingSummary s = summarize_durations(small, scratch);
  CHECK(scratch.data() == data);
  CHECK(s.p50_ns == 2);
}

}  // namespace
}  // namespace etkit::inspect
