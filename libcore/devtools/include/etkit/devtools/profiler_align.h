#pragma once

// Post-processing shared by every profiler backend: clock alignment, correlation, clipping.
// Allocation-free: the controller runs it at the end of each run, inside the runtime.

#include <cstddef>
#include <cstdint>
#include <span>

#include "etkit/devtools/profiler.h"

namespace etkit::prof {

/// host_ticks = slope * (device_ticks - device_origin) + host_origin, fitted by least squares.
struct ClockFit {
  double slope = 1.0;          ///< Host ticks per device tick.
  double host_origin = 0;      ///< Mean host time of the samples.
  double device_origin = 0;    ///< Mean device time of the samples.
  double max_residual = 0;     ///< Largest |sample - fit| in host ticks.
  double rms_residual = 0;     ///< Root mean square of the residuals, host ticks.
  size_t samples = 0;
  bool ok = false;             ///< False: too few samples or all at one device time.

  /// A device time in host ticks (rounded to the nearest tick, never below 0).
  uint64_t to_host(uint64_t device_ticks) const;
  /// Drift of the device clock against `nominal_slope` (host ticks per device tick from the
  /// rates), in parts per million.
  double drift_ppm(double nominal_slope) const;
};

/// Least-squares line through `samples`. With one sample (or all at the same device time) it
/// uses `nominal_slope` through their mean and sets `ok` only if there is at least one sample.
ClockFit fit_clock(std::span<const ClockSample> samples, double nominal_slope);

/// The identity: for backends in the host clock domain.
ClockFit identity_fit();

/// One instruction of the run as the host saw it, for correlation.
struct IssuedOp {
  int32_t chain = -1;
  uint32_t instruction = 0;
  uint64_t host_begin = 0;
  uint64_t host_end = 0;
};

/// A device event after post-processing, in host ticks.
struct AlignedEvent {
  const DeviceEvent* source = nullptr;
  uint64_t start = 0;
  uint64_t end = 0;
  int32_t chain = -1;         ///< Issuing instruction, -1 when uncorrelated.
  uint32_t instruction = 0;
  bool clipped = false;       ///< It reached outside the run window and was cut.
};

/// Aligns `event` with `fit`, correlates it through `ops` (indexed by correlation - 1) and
/// clips it to [window_begin, window_end]. False when it lies wholly outside the window (drop).
bool post_process(const DeviceEvent& event, const ClockFit& fit, std::span<const IssuedOp> ops,
                  uint64_t window_begin, uint64_t window_end, AlignedEvent* out);

}  // namespace etkit::prof
