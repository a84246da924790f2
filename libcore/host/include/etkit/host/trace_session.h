#pragma once

// `TraceSession`: everything a run needs to record an ETDump (host code): the clock, the
// ETDump writer and its event memory, the data sink for tensor payloads, and the filter; and
// writing the dump and debug buffer at the end.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "etkit/devtools/clock.h"
#include "etkit/devtools/data_sink.h"
#include "etkit/devtools/etdump_writer.h"
#include "etkit/devtools/event_filter.h"
#include "etkit/host/debug_buffer_path.h"  // where the debug buffer is written
#include "etkit/runtime/result.h"

namespace etkit {

/// The clock events are timed with.
enum class TraceClock {
  Host,       ///< The TSC where it can be trusted (`TscClock`), else steady_clock.
  Monotonic,  ///< Always steady_clock (the kernel's monotonic clock), never the TSC.
  Fake,       ///< `FakeClock`: 1 us per read, for byte-identical dumps.
};

/// How much the TSC clock may drift from the system clock over a session before the session's
/// summary flags its times as suspect: a hundred times the rate's calibration error.
inline constexpr double kClockDriftLimit = 1e-3;

/// How to trace.
struct TraceOptions {
  std::string etdump_path;
  /// Tensor payloads: streamed to `debug_out_path` if set, else kept in a buffer of
  /// `debug_buffer_size` bytes and written beside the dump at the end (see
  /// `debug_buffer_path_for`).
  std::string debug_out_path;
  uint64_t debug_buffer_size = uint64_t{16} << 20;
  DebugLevel debug_level = DebugLevel::None;
  ProfilingLevel profiling_level = ProfilingLevel::All;
  TraceClock clock = TraceClock::Host;
  /// Memory for recorded events (names, shapes and 40 bytes per event).
  uint64_t event_memory = uint64_t{16} << 20;
  std::vector<std::string> keep_names, drop_names;
  std::vector<std::pair<int64_t, int64_t>> keep_ranges, drop_ranges;
  /// Profiler devices to run (profiler_controller.h); empty: profiling off, no backend runs.
  std::vector<std::string> profilers;
  /// A profiler device with no backend, or unavailable, is an error instead of a warning.
  bool strict_profiler = false;
};

/// What `finish` wrote and what did not fit.
struct TraceSummary {
  std::string etdump_path;
  std::string debug_path;  ///< Empty when no payload was written.
  uint64_t debug_bytes = 0;
  size_t blocks = 0;  ///< Run blocks in the dump, without the metadata block.
  uint64_t dropped_events = 0;
  /// When events were dropped: an event memory that would have held them all (what was used,
  /// scaled by recorded + dropped events over recorded ones, rounded up to a MiB); else 0.
  uint64_t sufficient_event_memory = 0;
  uint64_t dropped_payloads = 0;
  bool interrupted = false;  ///< `mark_interrupted` was called: the dump says so.
  std::string sink_error;  ///< Non-empty when the debug output failed (e.g. disk full).
  /// With the TSC clock, when its time over the session parted from the system clock's by more
  /// than `kClockDriftLimit`: how far, as a fraction of the latter (`ClockSpan::drift`; the
  /// dump records it too). The TSC changed rate or jumped, and the dump's times are off by
  /// about as much. 0 otherwise, and with any other clock.
  double clock_drift = 0;
};

class TraceSession {
 public:
  /// Sets up the session. Errors: `InvalidArgument` for a bad pattern or range (the message
  /// names it), `AccessFailed` when the dump, the debug buffer beside it or the debug output
  /// file cannot be written (checked here, before any run: the message names the path),
  /// `OutOfMemory`;
  /// with `strict_profiler`, `NotFound`/`NotSupported` for a missing/unavailable profiler.
  static Result<TraceSession> create(const TraceOptions& options);
  TraceSession(TraceSession&&) noexcept;
  TraceSession& operator=(TraceSession&&) noexcept;
  ~TraceSession();

  /// The tracer to attach to methods.
  EventTracer& tracer();
  /// Profiler warnings so far (missing or unavailable devices), each once; also in the dump.
  std::vector<std::string> profiler_warnings() const;
  /// Marks the executions that follow as warm-up (`on`) or measured ones (the dump's
  /// `warmup_blocks` metadata; formats/README.md).
  void set_warmup(bool on);
  /// Records that the run was stopped early by a signal; the dump is marked `interrupted`.
  void mark_interrupted();

  /// Serializes the dump and writes it (and the debug buffer) through temporary files renamed
  /// into place. Errors: `AccessFailed` when the dump cannot be written; a failed debug output
  /// is reported in the summary instead (the dump is still written, with those payloads marked
  /// missing).
  Result<TraceSummary> finish();

 private:
  struct Impl;
  explicit TraceSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace etkit
