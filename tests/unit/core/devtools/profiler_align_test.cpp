// Clock fit, correlation and clipping, and the sim backend's alignment against ground truth.

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "etkit/devtools/profiler_align.h"
#include "etkit/devtools/profiler_sim.h"
#include "profiler_test_util.h"

namespace etkit::prof {
namespace {

TEST_CASE("profiler align: the fit recovers a line and records its residual") {
  std::vector<ClockSample> samples;
  for (uint64_t k = 0; k < 10; ++k) {
    // host = 2 * device + 1000; each device time sampled twice, once 3 ticks late
    const uint64_t device = 5'000'000'000ull + (k / 2) * 1000;
    samples.push_back({2 * device + 1000 + (k % 2 == 0 ? 3 : 0), device, 0});
  }
  const ClockFit fit = fit_clock(samples, 1.0);
  REQUIRE(fit.ok);
  CHECK(fit.slope == doctest::Approx(2.0).epsilon(1e-9));
  CHECK(fit.samples == 10);
  CHECK(fit.max_residual == doctest::Approx(1.5).epsilon(1e-6));
  CHECK(fit.rms_residual == doctest::Approx(1.5).epsilon(1e-6));
  CHECK(fit.to_host(5'000'000'000ull) == 10'000'001'002ull);  // 1000 + mean noise 1.5, rounded
}

TEST_CASE("profiler align: one sample falls back to the nominal rate; none cannot align") {
  const ClockSample one[] = {{1000, 50, 0}};
  const ClockFit fit = fit_clock(one, 4.0);
  CHECK(fit.ok);
  CHECK(fit.to_host(60) == 1040);
  CHECK_FALSE(fit_clock({}, 4.0).ok);
  CHECK(identity_fit().to_host(123) == 123);
}

TEST_CASE("profiler align: correlation to the issuing instruction and clipping to the run") {
  const IssuedOp ops[] = {{0, 4, 100, 200}, {0, 5, 200, 300}};
  DeviceEvent e;
  e.start = 150;
  e.end = 250;
  e.correlation = 2;
  AlignedEvent a;
  REQUIRE(post_process(e, identity_fit(), ops, 100, 1000, &a));
  CHECK(a.chain == 0);
  CHECK(a.instruction == 5);
  CHECK_FALSE(a.clipped);
  CHECK(a.start == 150);

  e.start = 50;  // starts before the run
  e.end = 1500;  // ends after it
  REQUIRE(post_process(e, identity_fit(), ops, 100, 1000, &a));
  CHECK(a.clipped);
  CHECK(a.start == 100);
  CHECK(a.end == 1000);

  e.start = 2000;
  e.end = 2100;
  CHECK_FALSE(post_process(e, identity_fit(), ops, 100, 1000, &a));

  e.start = 150;
  e.end = 160;
  e.correlation = 7;  // beyond the recorded instructions: uncorrelated
  REQUIRE(post_process(e, identity_fit(), ops, 100, 1000, &a));
  CHECK(a.chain == -1);
}

// Drives a sim session over 10 s of host time (a manual clock: no real waiting), one instruction
// per millisecond, and returns the largest gap between aligned and true start times.
double worst_alignment_error_ns(const SimConfig& config, bool fit_drift) {
  testing::ManualClock host;
  std::unique_ptr<ProfilerBackend> backend = make_sim_backend(config);
  SessionConfig sc;
  sc.host_clock = &host;
  sc.max_events = 20000;
  Result<std::unique_ptr<ProfilerSession>> opened = backend->open(sc);
  REQUIRE(opened.ok());
  ProfilerSession& session = **opened;
  host.ticks = 1'000'000;
  session.start(host.ticks);
  std::vector<double> truth;
  for (uint64_t k = 0; k < 10'000; ++k) {
    host.ticks += 1'000'000;  // 1 ms
    OpInfo op;
    op.correlation = k + 1;
    op.chain = 0;
    op.instruction = static_cast<uint32_t>(k);
    op.kind = "OPERATOR_CALL";
    op.host_ticks = host.ticks;
    session.on_op_begin(op);
    truth.push_back(static_cast<double>(host.ticks + config.launch_latency_ns));
    host.ticks += 300'000;
    op.host_ticks = host.ticks;
    session.on_op_end(op);
  }
  session.stop(host.ticks);
  std::vector<DeviceEvent> storage(20000);
  EventBuffer buffer(storage);
  session.collect(buffer);
  REQUIRE(buffer.size() == truth.size());
  const double nominal = 1e9 / static_cast<double>(config.ticks_per_second);
  CHECK(session.clock_samples().size() >= 100);
  ClockFit fit = fit_clock(session.clock_samples(), nominal);
  REQUIRE(fit.ok);
  if (fit_drift) {
    CHECK(fit.drift_ppm(nominal) == doctest::Approx(config.drift_ppm).epsilon(0.01));
    CHECK(fit.max_residual < 2.0 * static_cast<double>(config.read_jitter_ns) + 2);
  } else {
    fit.slope = nominal;  // offset only: what ignoring drift gives
  }
  double worst = 0;
  for (size_t i = 0; i < truth.size(); ++i) {
    const double aligned = static_cast<double>(fit.to_host(buffer.events()[i].start));
    worst = std::max(worst, std::fabs(aligned - truth[i]));
  }
  return worst;
}

TEST_CASE("profiler sim: aligned timestamps are within 1 us of ground truth over 10 s of drift") {
  for (double drift : {-200.0, 50.0, 500.0}) {
    CAPTURE(drift);
    SimConfig config;
    config.drift_ppm = drift;
    config.ticks_per_second = 800'000'000;
    config.offset_ticks = 7'000'000'000'000;
    config.read_jitter_ns = 300;
    config.sample_every_ops = 100;
    CHECK(worst_alignment_error_ns(config, true) < 1000.0);
  }
}

TEST_CASE("profiler sim: without the drift term the same run is far off (the test can fail)") {
  SimConfig config;
  config.drift_ppm = 50;
  // 50 ppm over 10 s is 500 us at the ends; the offset fit halves it.
  CHECK(worst_alignment_error_ns(config, false) > 100'000.0);
}

TEST_CASE("profiler sim: the clock model inverts exactly") {
  SimConfig config;
  config.drift_ppm = 123;
  SimClockModel model(config, 1'000'000'000);
  for (uint64_t host : {0ull, 1'000ull, 10'000'000'000ull}) {
    CHECK(std::fabs(model.host_at(model.device_at(host)) - static_cast<double>(host)) < 2.0);
  }
}

}  // namespace
}  // namespace etkit::prof
