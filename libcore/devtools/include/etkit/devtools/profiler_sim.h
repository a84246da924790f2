#pragma once

// The `sim` profiler backend: a simulated accelerator with its own clock (tick rate, offset,
// drift) and jittery clock reads, so that the core's alignment can be tested against ground
// truth, and so that delegate backends (e.g. the fused backend) can report device-side step
// times.
//
// For delegates (the public API):
//
//     if (etkit::prof::SimDevice* dev = etkit::prof::SimDevice::active()) {
//       dev->submit("fused step 3", dev->ticks_from_ns(1500));  // 1.5 us on the device
//     }
//
// `active()` is one atomic load: null unless a `sim` session is recording a run, so
// delegates pay nothing when profiling is off. Steps are attributed to the instruction being
// executed (the DelegateCall), queued one after the other on the device, and come out in the
// ETDump as `prof:sim:<name>` delegate events in host time. Not thread-safe (one method at a
// time, like the tracer).
//
// Without delegate submissions the simulator mirrors the host: each instruction becomes one
// device event `prof:sim:<kind>` that starts `launch_latency_ns` after the host issued it and
// ends when the host finished it. An instruction whose delegate submitted steps is shown by its
// steps only.

#include <cstdint>
#include <memory>
#include <string_view>

#include "etkit/devtools/profiler.h"

namespace etkit::prof {

/// The simulated device clock: device = offset + host_seconds * ticks_per_second * (1 + drift).
struct SimConfig {
  uint64_t ticks_per_second = 800'000'000;  ///< 800 MHz.
  int64_t offset_ticks = 1'000'000'000'000; ///< Device time at host time 0.
  double drift_ppm = 50;                    ///< The device clock runs fast by this much.
  uint64_t read_jitter_ns = 200;            ///< A device clock read lands up to this late.
  uint64_t launch_latency_ns = 2000;        ///< Host issue to device start.
  uint32_t sample_every_ops = 64;           ///< A clock sample every N instructions.
  uint64_t seed = 0x9e3779b97f4a7c15u;      ///< For the jitter (deterministic).
};

/// The ground-truth clock model of a simulated device.
class SimClockModel {
 public:
  SimClockModel(const SimConfig& config, uint64_t host_ticks_per_second);
  /// Device ticks at host time `host_ticks` (exact, no jitter).
  uint64_t device_at(uint64_t host_ticks) const;
  /// Host ticks at device time `device_ticks` (the inverse; ground truth for tests).
  double host_at(uint64_t device_ticks) const;
  /// Nominal host ticks per device tick (no drift).
  double nominal_slope() const;

 private:
  double host_tps_;
  double device_tps_;
  double offset_;
  double rate_;  // device ticks per host tick, drift included
};

/// The device a delegate reports to (see the file comment).
class SimDevice {
 public:
  /// The device of the `sim` session recording a run, or null.
  static SimDevice* active();

  virtual uint64_t ticks_per_second() const = 0;
  /// The device clock now.
  virtual uint64_t now() = 0;
  /// Ticks in `ns` nanoseconds.
  uint64_t ticks_from_ns(uint64_t ns) const {
    return static_cast<uint64_t>(static_cast<double>(ns) * static_cast<double>(ticks_per_second()) / 1e9);
  }
  /// Queues a step of `duration_ticks` after the previous one (or now, if the device is idle),
  /// attributed to the current instruction.
  virtual void submit(std::string_view name, uint64_t duration_ticks) = 0;
  /// Records a step with explicit device times.
  virtual void record(std::string_view name, uint64_t start_ticks, uint64_t end_ticks) = 0;

 protected:
  ~SimDevice() = default;
};

/// A `sim` backend with `config` (the registered one uses the defaults).
std::unique_ptr<ProfilerBackend> make_sim_backend(const SimConfig& config = SimConfig());

}  // namespace etkit::prof
