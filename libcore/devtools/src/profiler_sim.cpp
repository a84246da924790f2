// The `sim` profiler backend: a simulated accelerator with its own clock (see profiler_sim.h).

#include "etkit/devtools/profiler_sim.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "etkit/devtools/profiler_registry.h"

namespace etkit::prof {

SimClockModel::SimClockModel(const SimConfig& config, uint64_t host_ticks_per_second)
    : host_tps_(static_cast<double>(host_ticks_per_second)),
      device_tps_(static_cast<double>(config.ticks_per_second)),
      offset_(static_cast<double>(config.offset_ticks)),
      rate_(device_tps_ / host_tps_ * (1.0 + config.drift_ppm * 1e-6)) {}

uint64_t SimClockModel::device_at(uint64_t host_ticks) const {
  const double d = offset_ + rate_ * static_cast<double>(host_ticks);
  return d <= 0 ? 0 : static_cast<uint64_t>(std::llround(d));
}

double SimClockModel::host_at(uint64_t device_ticks) const {
  return (static_cast<double>(device_ticks) - offset_) / rate_;
}

double SimClockModel::nominal_slope() const { return host_tps_ / device_tps_; }

namespace {

std::atomic<SimDevice*> g_active{nullptr};

class SimSession final : public ProfilerSession, public SimDevice {
 public:
  static constexpr size_t kMaxSamples = 1024;

  SimSession(const SimConfig& config, Clock& host, size_t max_events)
      : config_(config), host_(host), model_(config, host.ticks_per_second()), rng_(config.seed | 1) {
    events_.reserve(max_events);
    samples_.reserve(kMaxSamples);
    const double host_per_ns = static_cast<double>(host.ticks_per_second()) / 1e9;
    latency_host_ = static_cast<uint64_t>(static_cast<double>(config.launch_latency_ns) * host_per_ns);
    jitter_host_ = static_cast<uint64_t>(static_cast<double>(config.read_jitter_ns) * host_per_ns);
  }
  ~SimSession() override {
    SimDevice* self = this;
    g_active.compare_exchange_strong(self, nullptr);
  }

  // ProfilerSession:
  uint64_t ticks_per_second() const override { return config_.ticks_per_second; }
  bool host_clock_domain() const override { return false; }
  void start(uint64_t) override {
    events_.clear();
    samples_.clear();
    dropped_ = 0;
    ops_ = 0;
    busy_until_ = 0;
    current_correlation_ = 0;
    open_ = false;
    sample();
    g_active.store(this, std::memory_order_release);
  }
  void stop(uint64_t) override {
    g_active.store(nullptr, std::memory_order_release);
    open_ = false;
    current_correlation_ = 0;
    if (samples_.size() == samples_.capacity()) samples_.pop_back();  // the last one is the stop
    sample();
  }
  void on_op_begin(const OpInfo& op) override {
    current_ = DeviceEvent();
    current_.set_name(op.kind);
    current_.correlation = op.correlation;
    current_.start = model_.device_at(op.host_ticks + latency_host_);
    current_correlation_ = op.correlation;
    open_ = true;
    submitted_in_op_ = false;
    if (config_.sample_every_ops > 0 && ++ops_ % config_.sample_every_ops == 0 &&
        samples_.size() + 1 < samples_.capacity()) {
      sample();
    }
  }
  void on_op_end(const OpInfo& op) override {
    // An instruction whose delegate reported its own steps is shown by those steps alone.
    if (open_ && op.correlation == current_.correlation && !submitted_in_op_) {
      current_.end = std::max(current_.start, model_.device_at(op.host_ticks));
      add(current_);
    }
    submitted_in_op_ = false;
    open_ = false;
    current_correlation_ = 0;
  }
  void collect(EventBuffer& out) override {
    for (const DeviceEvent& e : events_) out.append(e);
  }
  std::span<const ClockSample> clock_samples() const override { return samples_; }
  uint64_t dropped() const override { return dropped_; }

  // SimDevice:
  uint64_t now() override { return read_device(); }
  void submit(std::string_view name, uint64_t duration_ticks) override {
    const uint64_t start = std::max(read_device(), busy_until_);
    record(name, start, start + duration_ticks);
  }
  void record(std::string_view name, uint64_t start_ticks, uint64_t end_ticks) override {
    DeviceEvent e;
    e.set_name(name);
    e.start = start_ticks;
    e.end = std::max(start_ticks, end_ticks);
    e.correlation = current_correlation_;
    submitted_in_op_ = open_;
    busy_until_ = std::max(busy_until_, e.end);
    add(e);
  }

 private:
  // A device clock read lands somewhere in [0, jitter] after the host asked.
  uint64_t read_device() {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    const uint64_t late = jitter_host_ == 0 ? 0 : rng_ % (jitter_host_ + 1);
    return model_.device_at(host_.now() + late);
  }
  // Host read, device read, host read: the midpoint, with half the gap as uncertainty.
  void sample() {
    if (samples_.size() == samples_.capacity()) return;
    const uint64_t before = host_.now();
    const uint64_t device = read_device();
    const uint64_t after = host_.now();
    samples_.push_back({before + (after - before) / 2, device, (after - before) / 2});
  }
  void add(const DeviceEvent& e) {
    if (events_.size() < events_.capacity()) {
      events_.push_back(e);
    } else {
      ++dropped_;
    }
  }

  SimConfig config_;
  Clock& host_;
  SimClockModel model_;
  uint64_t rng_;
  uint64_t latency_host_ = 0;
  uint64_t jitter_host_ = 0;
  std::vector<DeviceEvent> events_;
  std::vector<ClockSample> samples_;
  DeviceEvent current_;
  bool open_ = false;
  bool submitted_in_op_ = false;
  uint64_t current_correlation_ = 0;
  uint64_t busy_until_ = 0;
  uint64_t ops_ = 0;
  uint64_t dropped_ = 0;
};

class SimBackend final : public ProfilerBackend {
 public:
  explicit SimBackend(const SimConfig& config) : config_(config) {}
  std::string_view device_type() const override { return "sim"; }
  Availability probe() override { return {true, ""}; }
  Result<std::unique_ptr<ProfilerSession>> open(const SessionConfig& config) override {
    if (config.host_clock == nullptr) {
      return Error(ErrorCode::InvalidArgument, "the sim profiler needs the host clock");
    }
    return std::unique_ptr<ProfilerSession>(
        new SimSession(config_, *config.host_clock, config.max_events));
  }

 private:
  SimConfig config_;
};

}  // namespace

SimDevice* SimDevice::active() { return g_active.load(std::memory_order_acquire); }

std::unique_ptr<ProfilerBackend> make_sim_backend(const SimConfig& config) {
  return std::unique_ptr<ProfilerBackend>(new SimBackend(config));
}

ETKIT_REGISTER_PROFILER("sim", [] { return make_sim_backend(); });

}  // namespace etkit::prof
