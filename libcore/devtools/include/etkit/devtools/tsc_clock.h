#pragma once

// A nanosecond clock read from the CPU's time-stamp counter: the tracer's clock wherever the
// TSC can be trusted to run at a constant rate, synchronised across cores (`tsc_trusted`). A
// read is one `rdtsc` and a multiply, a third to a half of `steady_clock::now()`, and a traced
// instruction reads the clock four times (DESIGN.md, "Tracing").

#include <cstdint>
#include <memory>
#include <string_view>

#include "etkit/devtools/clock.h"

namespace etkit {

/// Whether the TSC can serve as the tracer's clock, from the kernel's clock source
/// (/sys/devices/system/clocksource/clocksource0/current_clocksource) and the CPU's flags (the
/// `flags` line of /proc/cpuinfo, space-separated). Either the kernel keeps time with the TSC
/// ("tsc": it has checked that the rate is constant and synchronised across cores), or the CPU
/// says the TSC is invariant (`constant_tsc` and `nonstop_tsc`) and the hypervisor or firmware
/// vouches that it is synchronised (`tsc_reliable`). The second case is the virtual machine
/// whose kernel keeps time with its paravirtual clock (kvm-clock), which is the TSC scaled, at
/// two to three times the cost of a read.
bool tsc_trusted(std::string_view clocksource, std::string_view cpu_flags);

/// How the TSC clock's time since it was created compares with `steady_clock`'s over the same
/// span (both read together now), in nanoseconds.
struct ClockSpan {
  double tsc_ns = 0;
  double steady_ns = 0;
  /// (tsc - steady) / steady, or 0 when they differ by at most a microsecond (the error of
  /// the reads themselves).
  double drift() const;
};

/// Nanoseconds since the clock was created, from the TSC scaled by a rate measured against
/// `std::chrono::steady_clock` when it is created (a few milliseconds). Ticks are nanoseconds,
/// as SteadyClock's: dumps read the same. Create it with `TscClock::create()`.
class TscClock final : public Clock {
 public:
  /// The clock, or null where the TSC cannot be trusted (`tsc_trusted`, or not x86-64): use
  /// SteadyClock there.
  static std::unique_ptr<TscClock> create();

  uint64_t now() override;
  uint64_t ticks_per_second() const override { return 1'000'000'000; }
  const char* name() const override { return "tsc"; }

  /// The measured TSC rate in ticks per second.
  double tsc_hz() const { return tsc_hz_; }

  /// This clock's time since creation against steady_clock's, read now: a TSC that changed
  /// rate or jumped (a virtual machine moved to another host) shows as a drift far above the
  /// rate's error of about 1e-5. A few microseconds; not for the traced path.
  ClockSpan span() const;

 private:
  TscClock(uint64_t origin, int64_t origin_ns, uint64_t scale, double hz)
      : origin_(origin), origin_ns_(origin_ns), scale_(scale), tsc_hz_(hz) {}
  // Nanoseconds since creation at TSC reading `tsc`: the fixed-point scaling of every read.
  uint64_t to_ns(uint64_t tsc) const;
  uint64_t origin_;     // TSC at creation
  int64_t origin_ns_;   // steady_clock's nanoseconds at the same moment
  uint64_t scale_;      // nanoseconds per TSC tick, times 2^32
  double tsc_hz_;
};

/// The clock trace-run records with: TscClock where available, else SteadyClock.
std::unique_ptr<Clock> make_host_clock();

}  // namespace etkit
