// trace-run --etdump: setting up the trace session and reporting what it wrote.

#include <cstdio>

#include "etkit/host/filter_check.h"
#include "etkit/inspect/trace.h"
#include "etkit/tools/diagnostics.h"
#include "etkit/tools/size_arg.h"
#include "trace_run.h"

namespace etkit::tools {

std::unique_ptr<TraceSession> start_tracing(const TraceRunOptions& options, int* exit_code) {
  *exit_code = kExitOk;
  if (options.trace.etdump_path.empty()) return nullptr;
  Result<TraceSession> session = TraceSession::create(options.trace);
  if (!session.ok()) {
    // Bad patterns and ranges are the flags' fault and an unwritable debug file a path problem
    // (usage); a profiler device missing (NotFound here: a backend, not a name the user got
    // wrong) or unavailable under --strict-profiler is a missing backend (invalid input).
    const ErrorCode code = session.error().code();
    print_error(kTraceRun, session.error().message());
    *exit_code = code == ErrorCode::InvalidArgument || code == ErrorCode::AccessFailed
                     ? kExitUsage
                     : kExitInvalidInput;
    return nullptr;
  }
  for (const std::string& warning : session->profiler_warnings()) print_warning(kTraceRun, warning);
  return std::make_unique<TraceSession>(std::move(session).get());
}

void warn_about_filters(const ProgramFile& file, const std::vector<std::string>& methods,
                        const TraceRunOptions& options) {
  if (options.trace.etdump_path.empty()) return;
  for (const std::string& w : filter_warnings(file.program(), methods, options.trace)) {
    print_warning(kTraceRun, w);
  }
}

int finish_tracing(TraceSession& session, const TraceRunOptions& options) {
  Result<TraceSummary> summary = session.finish();
  if (!summary.ok()) return report(kTraceRun, summary.error());
  const TraceSummary& s = *summary;
  if (!s.sink_error.empty()) {
    print_warning(kTraceRun, s.sink_error + "; payloads past " + format_size(s.debug_bytes) +
                                 " are missing from the dump");
  }
  if (s.dropped_payloads > 0) {
    const bool buffer = options.trace.debug_out_path.empty();
    print_warning(kTraceRun,
                  std::to_string(s.dropped_payloads) + " tensor payload" +
                      (s.dropped_payloads == 1 ? "" : "s") + " could not be stored" +
                      (buffer ? " in the " + format_size(options.trace.debug_buffer_size) +
                                    " debug buffer (raise --debug-buffer-size or use --debug-out)"
                              : "") +
                      "; the dump marks them as having no payload");
  }
  if (s.dropped_events > 0) {
    print_warning(kTraceRun, std::to_string(s.dropped_events) + " event" +
                                 (s.dropped_events == 1 ? "" : "s") + " did not fit the " +
                                 format_size(options.trace.event_memory) +
                                 " trace memory and are missing from the dump; --trace-memory " +
                                 size_flag_value(s.sufficient_event_memory) +
                                 " would have held them");
  }
  if (s.clock_drift != 0) {
    print_warning(kTraceRun, inspect::clock_drift_warning(s.clock_drift) +
                                 "; --clock monotonic times events with the system clock");
  }
  if (options.format == OutputFormat::Text) {
    std::printf("etdump: %s (%zu event block%s)\n", s.etdump_path.c_str(), s.blocks,
                s.blocks == 1 ? "" : "s");
    if (!s.debug_path.empty()) {
      std::printf("debug buffer: %s (%llu bytes)\n", s.debug_path.c_str(),
                  static_cast<unsigned long long>(s.debug_bytes));
    }
  }
  return kExitOk;
}

}  // namespace etkit::tools
