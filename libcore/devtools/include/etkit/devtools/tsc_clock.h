#pragma once

// A nanosecond clock read from the CPU's time-stamp counter: the tracer's clock when the
// kernel itself keeps time with the TSC (it then guarantees a constant rate, synchronised
// across cores). A read is one `rdtsc` and a multiply, about half of `steady_clock::now()`, and
// a traced instruction reads the clock four times (DESIGN.md, "Tracing").

#include <cstdint>
#include <memory>

#include "etkit/devtools/clock.h"

namespace etkit {

/// Nanoseconds since the clock was created, from the TSC scaled by a rate measured against
/// `std::chrono::steady_clock` when it is created (a few milliseconds). Ticks are nanoseconds,
/// as SteadyClock's: dumps read the same. Create it with `TscClock::create()`.
class TscClock final : public Clock {
 public:
  /// The clock, or null where the TSC is not the system's clock source (not x86-64, or the
  /// kernel does not trust the TSC): use SteadyClock there.
  static std::unique_ptr<TscClock> create();

  uint64_t now() override;
  uint64_t ticks_per_second() const override { return 1'000'000'000; }
  const char* name() const override { return "tsc"; }

  /// The measured TSC rate in ticks per second.
  double tsc_hz() const { return tsc_hz_; }

 private:
  TscClock(uint64_t origin, uint64_t scale, double hz)
      : origin_(origin), scale_(scale), tsc_hz_(hz) {}
  uint64_t origin_;  // TSC at creation
  uint64_t scale_;   // nanoseconds per TSC tick, times 2^32
  double tsc_hz_;
};

/// The clock trace-run records with: TscClock where available, else SteadyClock.
std::unique_ptr<Clock> make_host_clock();

}  // namespace etkit
