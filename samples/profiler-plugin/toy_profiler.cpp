// A profiler plugin for a made-up device, "toy": its own clock (1 MHz, counting from an
// arbitrary origin), one event per instruction with one counter, and clock samples at start and stop so that
// etkit aligns its events to the host clock. It registers itself when the library is loaded.
//
// Everything it uses is etkit's public profiler API (etkit/devtools/profiler*.h).

#include <chrono>
#include <memory>
#include <vector>

#include "etkit/devtools/profiler_registry.h"

namespace {

using namespace etkit::prof;

constexpr const char* kCounters[] = {"toy_work"};

class ToySession final : public ProfilerSession {
 public:
  ToySession(etkit::Clock& host, size_t max_events) : host_(host) {
    events_.reserve(max_events);  // sessions allocate when opened, never while a method runs
    samples_.reserve(2);
  }

  uint64_t ticks_per_second() const override { return 1'000'000; }
  bool host_clock_domain() const override { return false; }
  /// One counter per event: the toy device's "work units" (100 per instruction index + 1).
  std::span<const char* const> counter_names() const override { return kCounters; }

  void start(uint64_t) override {
    events_.clear();
    samples_.clear();
    sample();
  }
  void stop(uint64_t) override { sample(); }
  void on_op_begin(const OpInfo& op) override {
    current_ = DeviceEvent();
    current_.set_name("toy kernel");
    current_.start = device_at(op.host_ticks);
    current_.correlation = op.correlation;
    current_.num_counters = 1;
    current_.counters[0] = 100 * (uint64_t{op.instruction} + 1);
  }
  void on_op_end(const OpInfo& op) override {
    current_.end = device_at(op.host_ticks);
    if (current_.end < current_.start) current_.end = current_.start;
    if (events_.size() < events_.capacity()) events_.push_back(current_);
  }
  void collect(EventBuffer& out) override {
    for (const DeviceEvent& e : events_) out.append(e);
  }
  std::span<const ClockSample> clock_samples() const override { return samples_; }

 private:
  // The toy device counts microseconds from 5 s before host time 0.
  uint64_t device_at(uint64_t host_ticks) const {
    const double seconds = static_cast<double>(host_ticks) / static_cast<double>(host_.ticks_per_second());
    return static_cast<uint64_t>((seconds + 5.0) * 1e6);
  }
  void sample() {
    const uint64_t host = host_.now();
    if (samples_.size() < 2) samples_.push_back({host, device_at(host), 0});
  }

  etkit::Clock& host_;
  std::vector<DeviceEvent> events_;
  std::vector<ClockSample> samples_;
  DeviceEvent current_;
};

class ToyBackend final : public ProfilerBackend {
 public:
  std::string_view device_type() const override { return "toy"; }
  Availability probe() override { return {true, ""}; }
  etkit::Result<std::unique_ptr<ProfilerSession>> open(const SessionConfig& config) override {
    if (config.host_clock == nullptr) {
      return etkit::Error(etkit::ErrorCode::InvalidArgument, "toy: no host clock");
    }
    return std::unique_ptr<ProfilerSession>(new ToySession(*config.host_clock, config.max_events));
  }
};

}  // namespace

ETKIT_REGISTER_PROFILER("toy", [] { return std::unique_ptr<ProfilerBackend>(new ToyBackend()); });
