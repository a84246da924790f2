// The `cpu` profiler backend: the host itself, on the host clock. One event per instruction,
// from its issue to its end, so that the host appears as a device track like any other.

#include "etkit/devtools/profiler_registry.h"
#include "host_session_events.h"

namespace etkit::prof {
namespace {

class CpuSession final : public ProfilerSession {
 public:
  explicit CpuSession(size_t max_events) : events_(max_events) {}
  uint64_t ticks_per_second() const override { return 0; }  // the host's
  bool host_clock_domain() const override { return true; }
  void start(uint64_t) override {
    events_.clear();
    open_ = false;
  }
  void stop(uint64_t) override { open_ = false; }
  void on_op_begin(const OpInfo& op) override {
    current_ = detail::begin_op_event(op);
    open_ = true;
  }
  void on_op_end(const OpInfo& op) override {
    if (!open_ || op.correlation != current_.correlation) return;
    open_ = false;
    current_.end = op.host_ticks;
    events_.add(current_);
  }
  void collect(EventBuffer& out) override { events_.collect(out); }
  std::span<const ClockSample> clock_samples() const override { return {}; }
  uint64_t dropped() const override { return events_.dropped(); }

 private:
  detail::BoundedEventList events_;
  DeviceEvent current_;
  bool open_ = false;
};

class CpuBackend final : public ProfilerBackend {
 public:
  std::string_view device_type() const override { return "cpu"; }
  Availability probe() override { return {true, ""}; }
  Result<std::unique_ptr<ProfilerSession>> open(const SessionConfig& config) override {
    return std::unique_ptr<ProfilerSession>(new CpuSession(config.max_events));
  }
};

}  // namespace

ETKIT_REGISTER_PROFILER("cpu", [] { return std::unique_ptr<ProfilerBackend>(new CpuBackend()); });

}  // namespace etkit::prof
