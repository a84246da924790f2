// Clock alignment, correlation and clipping of device events (allocation-free).

#include "etkit/devtools/profiler_align.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace etkit::prof {

void DeviceEvent::set_name(std::string_view text) {
  const size_t n = std::min(text.size(), kMaxEventName);
  std::memcpy(name, text.data(), n);
  name[n] = '\0';
}

bool EventBuffer::append(const DeviceEvent& event) {
  if (size_ >= storage_.size()) {
    ++dropped_;
    return false;
  }
  storage_[size_++] = event;
  return true;
}

uint64_t ClockFit::to_host(uint64_t device_ticks) const {
  const double host =
      host_origin + slope * (static_cast<double>(device_ticks) - device_origin);
  if (!(host > 0)) return 0;
  return static_cast<uint64_t>(std::llround(host));
}

double ClockFit::drift_ppm(double nominal_slope) const {
  if (nominal_slope <= 0 || slope <= 0) return 0;
  // A device running fast has fewer host ticks per device tick than nominal.
  return (nominal_slope / slope - 1.0) * 1e6;
}

ClockFit identity_fit() {
  ClockFit fit;
  fit.ok = true;
  return fit;
}

ClockFit fit_clock(std::span<const ClockSample> samples, double nominal_slope) {
  ClockFit fit;
  fit.slope = nominal_slope;
  fit.samples = samples.size();
  if (samples.empty()) return fit;
  // Centre on the means so that large tick values keep their precision in doubles.
  double mx = 0;
  double my = 0;
  for (const ClockSample& s : samples) {
    mx += static_cast<double>(s.device_ticks);
    my += static_cast<double>(s.host_ticks);
  }
  const auto n = static_cast<double>(samples.size());
  mx /= n;
  my /= n;
  double sxx = 0;
  double sxy = 0;
  for (const ClockSample& s : samples) {
    const double dx = static_cast<double>(s.device_ticks) - mx;
    const double dy = static_cast<double>(s.host_ticks) - my;
    sxx += dx * dx;
    sxy += dx * dy;
  }
  fit.device_origin = mx;
  fit.host_origin = my;
  if (sxx > 0) fit.slope = sxy / sxx;
  double max_r = 0;
  double sum_r2 = 0;
  for (const ClockSample& s : samples) {
    const double predicted = my + fit.slope * (static_cast<double>(s.device_ticks) - mx);
    const double r = std::fabs(static_cast<double>(s.host_ticks) - predicted);
    max_r = std::max(max_r, r);
    sum_r2 += r * r;
  }
  fit.max_residual = max_r;
  fit.rms_residual = std::sqrt(sum_r2 / n);
  fit.ok = true;
  return fit;
}

bool post_process(const DeviceEvent& event, const ClockFit& fit, std::span<const IssuedOp> ops,
                  uint64_t window_begin, uint64_t window_end, AlignedEvent* out) {
  AlignedEvent a;
  a.source = &event;
  a.start = fit.to_host(event.start);
  a.end = fit.to_host(std::max(event.end, event.start));
  if (event.correlation != 0 && event.correlation <= ops.size()) {
    const IssuedOp& op = ops[event.correlation - 1];
    a.chain = op.chain;
    a.instruction = op.instruction;
  }
  if (a.end < window_begin || a.start > window_end) return false;
  if (a.start < window_begin) {
    a.start = window_begin;
    a.clipped = true;
  }
  if (a.end > window_end) {
    a.end = window_end;
    a.clipped = true;
  }
  *out = a;
  return true;
}

}  // namespace etkit::prof
