// The `perf` profiler backend: Linux perf_event counters (cycles, instructions, cache misses)
// per instruction, counted for this thread in user space, on the host clock.
//
// Kernels and sandboxes often refuse perf_event_open (kernel.perf_event_paranoid, seccomp, VMs
// without a PMU): `probe` then says why and the controller warns once; the run goes on.

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "etkit/devtools/profiler_registry.h"
#include "host_session_events.h"

namespace etkit::prof {
namespace {

struct CounterSpec {
  const char* name;
  uint32_t type;
  uint64_t config;
};
constexpr CounterSpec kCounters[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
};

int open_counter(const CounterSpec& spec, int group) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.size = sizeof(attr);
  attr.type = spec.type;
  attr.config = spec.config;
  if (group < 0) attr.disabled = 1;  // the leader starts disabled; members follow it
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.read_format = PERF_FORMAT_GROUP;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, group, 0));
}

std::string paranoid_level() {
  std::FILE* f = std::fopen("/proc/sys/kernel/perf_event_paranoid", "r");
  if (f == nullptr) return "";
  int level = 0;
  const bool ok = std::fscanf(f, "%d", &level) == 1;
  std::fclose(f);
  return ok ? " (kernel.perf_event_paranoid=" + std::to_string(level) + ")" : "";
}

class PerfSession final : public ProfilerSession {
 public:
  PerfSession(std::vector<int> fds, std::vector<const char*> names, size_t max_events)
      : fds_(std::move(fds)), names_(std::move(names)), events_(max_events) {}
  ~PerfSession() override {
    for (int fd : fds_) ::close(fd);
  }
  uint64_t ticks_per_second() const override { return 0; }
  bool host_clock_domain() const override { return true; }
  std::span<const char* const> counter_names() const override { return names_; }
  void start(uint64_t) override {
    events_.clear();
    open_ = false;
    ioctl(fds_[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
    ioctl(fds_[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
  }
  void stop(uint64_t) override {
    ioctl(fds_[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
    open_ = false;
  }
  void on_op_begin(const OpInfo& op) override {
    open_ = read_counts(begin_);
    current_ = detail::begin_op_event(op);
  }
  void on_op_end(const OpInfo& op) override {
    if (!open_ || op.correlation != current_.correlation) return;
    open_ = false;
    uint64_t end[kMaxCounters];
    if (!read_counts(end)) {
      events_.drop();
      return;
    }
    current_.end = op.host_ticks;
    current_.num_counters = static_cast<uint32_t>(names_.size());
    for (size_t k = 0; k < names_.size(); ++k) current_.counters[k] = end[k] - begin_[k];
    events_.add(current_);
  }
  void collect(EventBuffer& out) override { events_.collect(out); }
  std::span<const ClockSample> clock_samples() const override { return {}; }
  uint64_t dropped() const override { return events_.dropped(); }

 private:
  bool read_counts(uint64_t* out) {
    uint64_t buffer[1 + kMaxCounters];  // PERF_FORMAT_GROUP: nr, then the values
    const ssize_t n = ::read(fds_[0], buffer, sizeof(buffer));
    if (n < static_cast<ssize_t>(sizeof(uint64_t) * (1 + names_.size()))) return false;
    for (size_t k = 0; k < names_.size(); ++k) out[k] = buffer[1 + k];
    return true;
  }

  std::vector<int> fds_;
  std::vector<const char*> names_;
  detail::BoundedEventList events_;
  DeviceEvent current_;
  uint64_t begin_[kMaxCounters] = {};
  bool open_ = false;
};

class PerfBackend final : public ProfilerBackend {
 public:
  std::string_view device_type() const override { return "perf"; }
  Availability probe() override {
    const int fd = open_counter(kCounters[1], -1);  // instructions, as `perf stat -e instructions`
    if (fd < 0) {
      const int err = errno;
      return {false, std::string("perf_event_open(instructions): ") + std::strerror(err) +
                         paranoid_level()};
    }
    ::close(fd);
    return {true, ""};
  }
  Result<std::unique_ptr<ProfilerSession>> open(const SessionConfig& config) override {
    std::vector<int> fds;
    std::vector<const char*> names;
    for (const CounterSpec& spec : kCounters) {
      const int fd = open_counter(spec, fds.empty() ? -1 : fds[0]);
      if (fd < 0) continue;  // a counter this PMU lacks (cache misses in some VMs): skip it
      fds.push_back(fd);
      names.push_back(spec.name);
    }
    if (fds.empty()) {
      return Error(ErrorCode::NotSupported, "perf_event_open: %s", std::strerror(errno));
    }
    return std::unique_ptr<ProfilerSession>(
        new PerfSession(std::move(fds), std::move(names), config.max_events));
  }
};

}  // namespace

ETKIT_REGISTER_PROFILER("perf", [] { return std::unique_ptr<ProfilerBackend>(new PerfBackend()); });

}  // namespace etkit::prof
