#pragma once

// Profiler backends: the interface a device implements so that its activity lands in a trace.
//
// A `ProfilerBackend` stands for one device type ("cpu", "perf", "sim", or a plugin's own). It
// says whether it can run here (`probe`, which returns a reason instead of failing) and opens a
// `ProfilerSession` for a traced method. A session is started and stopped around each run (one
// execution of the method), hears about every instruction the interpreter issues, and hands back
// what it recorded as `DeviceEvent`s in its *own* clock domain, together with paired host/device
// clock samples. The core (profiler_controller.h) then does what every backend needs alike:
// aligns the device clock to the host clock (profiler_align.h), correlates each event to the
// instruction that issued it, clips it to the run window and writes it to the ETDump as a
// delegate profiling event in host time (formats/README.md, "Profiler events").
//
// Real-time rule: `start`, `stop`, `on_op_begin`, `on_op_end` and `collect` are called while a
// method runs and must not allocate, block or fail loudly: a session reserves its memory in
// `ProfilerBackend::open` (host code) and counts what does not fit.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "etkit/devtools/clock.h"
#include "etkit/runtime/result.h"

namespace etkit::prof {

/// One paired reading of the host clock and a device clock. A backend reads host, device, host
/// and reports the midpoint of the host reads with half their distance as the uncertainty.
struct ClockSample {
  uint64_t host_ticks = 0;    ///< In the host clock's ticks (the tracer's clock).
  uint64_t device_ticks = 0;  ///< In the device clock's ticks.
  uint64_t uncertainty = 0;   ///< Host ticks either side of `host_ticks`.
};

/// At most this many counters per event (perf: cycles, instructions, cache misses).
inline constexpr size_t kMaxCounters = 4;
/// Longest event name kept (longer names are truncated).
inline constexpr size_t kMaxEventName = 47;

/// One event recorded by a device, in the device's clock domain.
struct DeviceEvent {
  char name[kMaxEventName + 1] = {};  ///< NUL-terminated, e.g. "OPERATOR_CALL", "step 3".
  uint64_t start = 0;                 ///< Device ticks.
  uint64_t end = 0;                   ///< Device ticks, >= start.
  /// The issuing instruction's correlation id (`OpInfo::correlation`), 0 for none.
  uint64_t correlation = 0;
  uint32_t num_counters = 0;  ///< Values in `counters`, named by the session's `counter_names`.
  uint64_t counters[kMaxCounters] = {};

  /// Copies `text` into `name` (truncated to kMaxEventName bytes).
  void set_name(std::string_view text);
};

/// Fixed-capacity storage for device events: appends never allocate; what does not fit is
/// counted.
class EventBuffer {
 public:
  explicit EventBuffer(std::span<DeviceEvent> storage) : storage_(storage) {}
  /// Adds an event; false (and counted as dropped) when full.
  bool append(const DeviceEvent& event);
  void clear() {
    size_ = 0;
    dropped_ = 0;
  }
  std::span<const DeviceEvent> events() const { return storage_.first(size_); }
  size_t size() const { return size_; }
  size_t capacity() const { return storage_.size(); }
  uint64_t dropped() const { return dropped_; }

 private:
  std::span<DeviceEvent> storage_;
  size_t size_ = 0;
  uint64_t dropped_ = 0;
};

/// An instruction as the interpreter issues it.
struct OpInfo {
  uint64_t correlation = 0;  ///< 1, 2, ... in issue order within the run.
  int32_t chain = -1;
  uint32_t instruction = 0;   ///< Index within the chain.
  const char* kind = "";      ///< "OPERATOR_CALL", "DELEGATE_CALL", "MOVE_CALL", ...
  uint64_t host_ticks = 0;    ///< Host time of the begin (or end) notification.
};

/// What a backend reports about itself for one trace.
struct Availability {
  bool available = false;
  std::string reason;  ///< Why not, e.g. "perf_event_open: Permission denied"; empty when available.
};

/// How a session is opened.
struct SessionConfig {
  /// The host clock (the tracer's): every host timestamp is in its ticks. Outlives the session.
  Clock* host_clock = nullptr;
  /// Device events a session keeps per run; the rest are dropped and counted.
  size_t max_events = 65536;
};

/// The per-trace state of one backend.
class ProfilerSession {
 public:
  virtual ~ProfilerSession() = default;

  /// The device's clock: ticks per second, and whether it *is* the host clock (then samples
  /// are not needed and events are taken as host ticks).
  virtual uint64_t ticks_per_second() const = 0;
  virtual bool host_clock_domain() const = 0;
  /// Names of the counters events carry ("cycles", ...); empty for none.
  virtual std::span<const char* const> counter_names() const { return {}; }

  /// Starts recording a run: forgets the previous run's events and samples.
  virtual void start(uint64_t host_ticks) = 0;
  /// Stops recording; after it `collect` and `clock_samples` describe the run.
  virtual void stop(uint64_t host_ticks) = 0;
  /// The interpreter is about to run / has run an instruction.
  virtual void on_op_begin(const OpInfo& op) { (void)op; }
  virtual void on_op_end(const OpInfo& op) { (void)op; }
  /// Appends the run's events (device clock) to `out`.
  virtual void collect(EventBuffer& out) = 0;
  /// The run's paired clock samples (at least two unless `host_clock_domain()`).
  virtual std::span<const ClockSample> clock_samples() const = 0;
  /// Events the session itself could not keep this run.
  virtual uint64_t dropped() const { return 0; }
};

/// One device type's profiler.
class ProfilerBackend {
 public:
  virtual ~ProfilerBackend() = default;
  /// The device type users name in `--profiler`, e.g. "sim". Lower case, no commas.
  virtual std::string_view device_type() const = 0;
  /// Whether it can profile here. Never fails: the reason says why not.
  virtual Availability probe() = 0;
  /// Opens a session (host code: may allocate). Errors say why the device cannot be used.
  virtual Result<std::unique_ptr<ProfilerSession>> open(const SessionConfig& config) = 0;
};

}  // namespace etkit::prof
