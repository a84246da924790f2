#include "etkit/devtools/tsc_clock.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <string>
#include <string_view>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace etkit {
namespace {

#if defined(__x86_64__)
__extension__ typedef unsigned __int128 uint128;  // GCC and Clang's, for the scaling multiply

uint64_t read_tsc() { return __rdtsc(); }

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The first word of a file (the kernel's clock source), or "".
std::string first_word(const char* path) {
  std::ifstream f(path);
  std::string word;
  return f >> word ? word : std::string();
}

// The CPU flags of /proc/cpuinfo's first `flags` line, or "".
std::string cpu_flags() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    const size_t colon = line.find(':');
    return colon == std::string::npos ? std::string() : line.substr(colon + 1);
  }
  return {};
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
    const int64_t ns = steady_ns();
    const uint64_t b = read_tsc();
    if (b - a < best_width) {
      best_width = b - a;
      best = {a + (b - a) / 2, ns};
    }
  }
  return best;
}
#endif

bool has_word(std::string_view text, std::string_view word) {
  size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
    size_t end = at;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
    if (text.substr(at, end - at) == word) return true;
    at = end;
  }
  return false;
}

}  // namespace

bool tsc_trusted(std::string_view clocksource, std::string_view flags) {
  if (clocksource == "tsc") return true;
  return has_word(flags, "constant_tsc") && has_word(flags, "nonstop_tsc") &&
         has_word(flags, "tsc_reliable");
}

double ClockSpan::drift() const {
  // Each end of the span is a pair read within a few tens of nanoseconds: a gap of up to a
  // microsecond is the reads' own error, whatever the span (a short run would otherwise show
  // it as a large fraction).
  const double gap = tsc_ns - steady_ns;
  if (std::fabs(gap) <= 1000) return 0;
  return gap / std::max(steady_ns, 1000.0);
}

std::unique_ptr<TscClock> TscClock::create() {
#if defined(__x86_64__)
  if (!tsc_trusted(first_word("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
                   cpu_flags())) {
    return nullptr;
  }
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
  return std::unique_ptr<TscClock>(new TscClock(end.tsc, end.ns, scale, hz));
#else
  return nullptr;
#endif
}

ClockSpan TscClock::span() const {
#if defined(__x86_64__)
  const Pair now = read_pair();
  return {static_cast<double>(to_ns(now.tsc)), static_cast<double>(now.ns - origin_ns_)};
#else
  return {};  // never created
#endif
}

uint64_t TscClock::to_ns(uint64_t tsc) const {
#if defined(__x86_64__)
  return static_cast<uint64_t>((static_cast<uint128>(tsc - origin_) * scale_) >> 32);
#else
  (void)tsc;
  return 0;  // never created
#endif
}

uint64_t TscClock::now() {
#if defined(__x86_64__)
  return to_ns(read_tsc());
#else
  return 0;  // never created
#endif
}

std::unique_ptr<Clock> make_host_clock() {
  if (std::unique_ptr<TscClock> tsc = TscClock::create()) return tsc;
  return std::make_unique<SteadyClock>();
}

}  // namespace etkit
