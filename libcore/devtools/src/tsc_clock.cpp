#include "etkit/devtools/tsc_clock.h"

#include <chrono>
#include <fstream>
#include <string>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace etkit {
namespace {

#if defined(__x86_64__)
__extension__ typedef unsigned __int128 uint128;  // GCC and Clang's, for the scaling multiply

uint64_t read_tsc() { return __rdtsc(); }

// The kernel keeps time with the TSC only after checking that it runs at a constant rate and
// is synchronised across cores (constant_tsc, nonstop_tsc, no drift between sockets).
bool kernel_uses_tsc() {
  std::ifstream f("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string source;
  return static_cast<bool>(f >> source) && source == "tsc";
}

// A (TSC, steady ns) pair read close together: the steady read bracketed by two TSC reads, the
// tightest bracket of a few tries (a preempted try has a wide one), its midpoint.
struct Pair {
  uint64_t tsc;
  int64_t ns;
};
Pair read_pair() {
  Pair best{0, 0};
  uint64_t best_width = UINT64_MAX;
  for (int i = 0; i < 16; ++i) {
    const uint64_t a = read_tsc();
    const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count();
    const uint64_t b = read_tsc();
    if (b - a < best_width) {
      best_width = b - a;
      best = {a + (b - a) / 2, ns};
    }
  }
  return best;
}
#endif

}  // namespace

std::unique_ptr<TscClock> TscClock::create() {
#if defined(__x86_64__)
  if (!kernel_uses_tsc()) return nullptr;
  // The rate over 5 ms of steady time: each end is known to a few tens of nanoseconds, so the
  // rate to about 1e-5, a few microseconds per second of run.
  const Pair start = read_pair();
  Pair end = start;
  while (end.ns - start.ns < 5'000'000) end = read_pair();
  if (end.tsc <= start.tsc) return nullptr;
  const double hz =
      static_cast<double>(end.tsc - start.tsc) * 1e9 / static_cast<double>(end.ns - start.ns);
  // Below 1 MHz (or above 2^32 GHz) the fixed-point scale would not fit: not a usable TSC.
  if (hz < 1e6 || hz > 4e18) return nullptr;
  const auto scale = static_cast<uint64_t>(1e9 / hz * 4294967296.0);
  return std::unique_ptr<TscClock>(new TscClock(read_tsc(), scale, hz));
#else
  return nullptr;
#endif
}

uint64_t TscClock::now() {
#if defined(__x86_64__)
  const uint64_t ticks = read_tsc() - origin_;
  return static_cast<uint64_t>((static_cast<uint128>(ticks) * scale_) >> 32);
#else
  return 0;  // never created
#endif
}

std::unique_ptr<Clock> make_host_clock() {
  if (std::unique_ptr<TscClock> tsc = TscClock::create()) return tsc;
  return std::make_unique<SteadyClock>();
}

}  // namespace etkit
