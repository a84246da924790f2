#pragma once

// A subject and its reference timed alternately, one call each per iteration, so that both see
// the same machine state. Each call is timed in the calling thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID), which leaves out the time other processes hold the core on a shared
// machine (both calls must run on the calling thread: OpenBLAS with one thread does). The
// iteration time is the subject's (register with ->UseManualTime()); counters give both rates
// and their ratio.

#include <benchmark/benchmark.h>

#include <time.h>

#include <algorithm>
#include <limits>
#include <string>

namespace etkit::bench {

// Counters: "GFLOP" (subject), "<ref>_GFLOP" (reference), "x_<ref>" (subject rate / reference
// rate over all iterations, above 1 when the subject is faster) and "x_<ref>_best" (the same
// from each one's fastest call).
inline double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

template <typename Subject, typename Reference>
void run_pair(benchmark::State& state, double flops, const std::string& ref, Subject subject,
              Reference reference) {
  double subject_total = 0;
  double reference_total = 0;
  double subject_best = std::numeric_limits<double>::infinity();
  double reference_best = std::numeric_limits<double>::infinity();
  for (auto _ : state) {
    const double t0 = thread_seconds();
    if (!subject()) return;
    const double t1 = thread_seconds();
    reference();
    const double t2 = thread_seconds();
    const double s = t1 - t0;
    const double r = t2 - t1;
    subject_total += s;
    reference_total += r;
    subject_best = std::min(subject_best, s);
    reference_best = std::min(reference_best, r);
    state.SetIterationTime(s);
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["GFLOP"] = flops * 1e-9 * iterations / subject_total;
  state.counters[ref + "_GFLOP"] = flops * 1e-9 * iterations / reference_total;
  state.counters["x_" + ref] = reference_total / subject_total;
  state.counters["x_" + ref + "_best"] = reference_best / subject_best;
}

}  // namespace etkit::bench
