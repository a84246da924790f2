#include "etkit/devtools/tsc_clock.h"

#include <doctest/doctest.h>
#include <sched.h>

#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

namespace etkit {
namespace {

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

TEST_CASE("tsc clock: trusted where the kernel keeps time with it or the CPU and hypervisor vouch") {
  const char* invariant = "fpu tsc constant_tsc rep_good nonstop_tsc tsc_reliable tsc_known_freq";
  CHECK(tsc_trusted("tsc", ""));
  CHECK(tsc_trusted("kvm-clock", invariant));
  CHECK(tsc_trusted("kvm-clock", "\tconstant_tsc\tnonstop_tsc\ttsc_reliable\t"));
  CHECK_FALSE(tsc_trusted("kvm-clock", "fpu tsc constant_tsc nonstop_tsc"));  // nobody vouches
  CHECK_FALSE(tsc_trusted("hpet", "tsc constant_tsc tsc_reliable"));  // stops in deep sleep
  CHECK_FALSE(tsc_trusted("kvm-clock", "constant_tsc_x nonstop_tsc tsc_reliable"));  // words
  CHECK_FALSE(tsc_trusted("kvm-clock", "xconstant_tsc nonstop_tsc tsc_reliable"));
  CHECK_FALSE(tsc_trusted("", ""));
  CHECK_FALSE(tsc_trusted("tsc-ish", "rep_good nonstop_tsc tsc_reliable"));  // not invariant
}

TEST_CASE("tsc clock: a span's drift is the relative difference beyond the reads' error") {
  CHECK(ClockSpan{1'002'000, 1'000'000}.drift() == doctest::Approx(2e-3));
  CHECK(ClockSpan{998'000, 1'000'000}.drift() == doctest::Approx(-2e-3));
  // Up to a microsecond apart is the error of the reads, even over a short span.
  CHECK(ClockSpan{1'001'000, 1'000'000}.drift() == 0);
  CHECK(ClockSpan{50'900, 50'000}.drift() == 0);
  CHECK(ClockSpan{}.drift() == 0);
  // A jump over a span too short to measure a rate still shows.
  CHECK(ClockSpan{5e9, 500}.drift() == doctest::Approx(5e6));
  CHECK(ClockSpan{0, 5e9}.drift() == doctest::Approx(-1));
}

TEST_CASE("tsc clock: nanoseconds that never go back and agree with steady_clock") {
  std::unique_ptr<TscClock> clock = TscClock::create();
  if (clock == nullptr) {
    MESSAGE("the TSC is not this machine's clock source: make_host_clock uses steady_clock");
    CHECK(std::string(make_host_clock()->name()) == "steady");
    return;
  }
  CHECK(std::string(clock->name()) == "tsc");
  CHECK(clock->ticks_per_second() == 1'000'000'000);
  CHECK(clock->tsc_hz() > 1e6);
  uint64_t last = clock->now();
  for (int i = 0; i < 100000; ++i) {
    const uint64_t t = clock->now();
    REQUIRE(t >= last);
    last = t;
  }
  // Nor across cores: the thread is moved from core to core (the ones it may run on) between
  // reads, as the scheduler may move a traced run. A TSC trusted on the CPU's flags alone
  // (tsc_trusted) must be synchronised for this to hold.
  cpu_set_t allowed;
  if (::sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 1) {
    std::vector<int> cores;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &allowed)) cores.push_back(c);
    }
    for (int i = 0; i < 2000; ++i) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cores[static_cast<size_t>(i) % cores.size()], &one);
      if (::sched_setaffinity(0, sizeof one, &one) != 0) break;  // not allowed here: no move
      const uint64_t t = clock->now();
      REQUIRE(t >= last);
      last = t;
    }
    (void)::sched_setaffinity(0, sizeof allowed, &allowed);
  }
  // An interval measured by both: the TSC's lies inside the steady clock's outer bracket
  // (read before and after it), within the rate's error, and spans at least the sleep.
  const int64_t s0 = steady_ns();
  const uint64_t t0 = clock->now();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const uint64_t t1 = clock->now();
  const int64_t s1 = steady_ns();
  const double tsc = static_cast<double>(t1 - t0);
  const double steady = static_cast<double>(s1 - s0);
  CHECK(tsc >= 20e6 * 0.999);
  CHECK(tsc <= steady * 1.001);
  CHECK(std::string(make_host_clock()->name()) == "tsc");
  // Over the whole test the TSC kept the rate it was calibrated with.
  const ClockSpan span = clock->span();
  CHECK(span.steady_ns >= 20e6);
  CHECK(std::fabs(span.drift()) < 1e-3);
}

}  // namespace
}  // namespace etkit
