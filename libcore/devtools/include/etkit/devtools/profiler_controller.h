#pragma once

// `ProfilingController`: runs the requested profiler backends around a traced method and writes
// their events into the trace (host code to set up; allocation-free while the method runs).
//
// It wraps the run's tracer (an ETDumpWriter) in a forwarding tracer (`tracer()`): attach that
// one to the method. The forwarding tracer notices
//   - the start of each run (an event block that is not a `:load` block) and its end (the end of
//     `Method::execute`, or the next block, or `finish`), and
//   - each instruction (`OPERATOR_CALL`, `DELEGATE_CALL`, ... events), which it numbers with a
//     correlation id and announces to every session.
// At the end of a run it stops the sessions, collects their events, aligns each device clock to
// the host clock by a least-squares fit over the session's clock samples, correlates events to
// the issuing instruction, clips them to the run window and records them in the tracer as
// delegate profiling events named `prof:<device>:<event>` (formats/README.md). Device events
// need per-instruction profiling (`ProfilingLevel::All`).
//
// Profiling off means no controller: the method runs with the plain tracer (or none) and no
// backend code runs at all.
//
// Devices asked for with no registered backend, or whose probe says they are unavailable, give
// one warning each (listing the registered device types), kept in `warnings()` and in the dump's
// metadata; with `strict` they are errors instead. Backends registered later are looked up again
// at the start of the next run.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "etkit/devtools/clock.h"
#include "etkit/runtime/event_tracer.h"
#include "etkit/devtools/profiler.h"
#include "etkit/devtools/profiler_align.h"
#include "etkit/devtools/profiler_registry.h"
#include "etkit/runtime/result.h"

namespace etkit::prof {

class ForwardingTracer;

/// What to profile.
struct ProfilerRequest {
  std::vector<std::string> devices;  ///< Device types in the order asked for (duplicates ignored).
  bool strict = false;               ///< A missing or unavailable device is an error.
  size_t max_events = 65536;         ///< Device events kept per device per run.
  size_t max_ops = 65536;            ///< Instructions correlated per run (later ones are not).
};

/// What one device did over the whole trace.
struct DeviceReport {
  std::string device;
  bool active = false;          ///< It took part in at least one run.
  uint64_t runs = 0;
  uint64_t events = 0;          ///< Written to the trace.
  uint64_t dropped = 0;         ///< Did not fit the session's or the controller's memory.
  uint64_t clipped = 0;         ///< Cut at the run window.
  uint64_t outside = 0;         ///< Wholly outside the run window: not written.
  double max_residual_ns = 0;   ///< Largest clock-fit residual over all runs.
  double drift_ppm = 0;         ///< Of the last run's fit against the nominal rates.
  std::vector<std::string> counters;
};

class ProfilingController {
 public:
  /// Resolves `request.devices` in `registry` and opens a session for each available one.
  /// `inner` and `host_clock` (the tracer's clock) must outlive the controller. Errors (strict
  /// only): `NotFound` "no profiler backend for device 'npu' (registered: cpu, perf, sim)",
  /// `NotSupported` "profiler device 'perf' is not available: REASON"; a backend whose `open`
  /// fails is treated as unavailable with that reason.
  static Result<std::unique_ptr<ProfilingController>> create(
      const ProfilerRequest& request, EventTracer& inner, Clock& host_clock,
      ProfilerRegistry& registry = ProfilerRegistry::global());
  ~ProfilingController();
  ProfilingController(const ProfilingController&) = delete;
  ProfilingController& operator=(const ProfilingController&) = delete;

  /// The tracer to attach to methods (forwards to `inner`).
  EventTracer& tracer();

  /// Runs are found by the tracer; these mark them by hand (e.g. around a delegate test).
  void begin_run();
  void end_run();
  bool run_active() const;
  /// Ends an active run. Call before serializing the trace.
  void finish();

  /// Every warning so far, once each, in order (missing and unavailable devices, empty devices).
  const std::vector<std::string>& warnings() const;
  /// Per requested device, in request order.
  std::vector<DeviceReport> reports() const;
  /// `key=value` entries for the dump's etkit metadata block (formats/README.md).
  std::vector<std::string> metadata() const;

 private:
  struct Impl;
  friend class ForwardingTracer;
  explicit ProfilingController(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace etkit::prof
