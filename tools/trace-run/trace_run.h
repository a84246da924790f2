#pragma once

// trace-run: run a method of a .pte program (or every test case of a .bpte bundle) and report
// its outputs and timings. See man/trace-run.1.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "etkit/host/runner.h"
#include "etkit/host/trace_session.h"

namespace etkit::tools {

inline constexpr const char* kTraceRun = "trace-run";

enum class OutputFormat { Text, Json };

/// Everything the command line says.
struct TraceRunOptions {
  std::string program_path;
  std::string method;  ///< Empty: `forward`, or the only method.
  bool list = false;
  std::vector<std::string> inputs;
  /// --call METHOD[:INPUT,...], in order (run_calls.cpp); empty: one run of one method.
  std::vector<std::string> calls;
  std::string outputs_dir;
  int iterations = 1;
  int warmup = 0;
  bool timing_requested = false;  ///< --iterations, --warmup, --min-secs or --max-secs given.
  /// --min-secs: timed iterations go on until this many seconds have passed (and at least
  /// `iterations` ran); 0: no minimum.
  double min_secs = 0;
  /// --max-secs: no timed iteration starts after this many seconds, even short of
  /// `iterations` (at least one runs); 0: no bound.
  double max_secs = 0;
  /// With --call and --iterations/--warmup: reset the shared state to its initial values before
  /// each sequence after the first (--no-reset: false).
  bool reset_shared_state = true;
  /// --memory: report each method's memory and the process's peak RSS after the run.
  bool memory = false;
  /// Measured, not a flag: nanoseconds `ProgramFile::open` took (reported with the timings).
  double program_load_ns = 0;
  std::string ptd_path;
  uint64_t max_memory = uint64_t{1} << 30;
  /// Method memory beyond the plan for delegates' init allocations (--delegate-memory).
  uint64_t delegate_memory = uint64_t{64} << 20;
  OutputFormat format = OutputFormat::Text;
  /// --threads: threads kernels split their work over (1: the caller's only).
  int threads = 1;
  /// The pool behind `threads` (> 1), created before anything runs; null for one thread.
  ParallelRunner* parallel = nullptr;
  /// Tracing: active when `trace.etdump_path` is set.
  TraceOptions trace;
  /// Backends available to programs (the test build of trace-run registers a test backend).
  const BackendRegistry* backends = nullptr;
};

/// Sets up tracing for a run if asked (null session otherwise). Prints and returns the exit
/// code on failure through `exit_code`.
std::unique_ptr<TraceSession> start_tracing(const TraceRunOptions& options, int* exit_code);
/// Prints the warnings of `filter_warnings` (etkit/host/filter_check.h) for the methods a run
/// calls: output filters that can have no effect. Nothing when not tracing.
void warn_about_filters(const ProgramFile& file, const std::vector<std::string>& methods,
                        const TraceRunOptions& options);
/// Writes the dump, reports what was written and what did not fit; returns an exit code.
int finish_tracing(TraceSession& session, const TraceRunOptions& options);

/// The runner options the flags give (memory limits, backends, threads), with `tracer` attached.
RunnerOptions runner_options(const TraceRunOptions& options, EventTracer* tracer);
/// Prints why `method` of `file` did not load and returns the exit code; when memory ran out,
/// names the flag that gives more (--max-memory for the plan, --delegate-memory beyond it).
int report_load_error(const ProgramFile& file, const std::string& method, const Error& error,
                      const TraceRunOptions& options);

/// `bytes` as a size flag value, in MiB rounded up ("48M"), so a suggestion can be pasted.
std::string size_flag_value(uint64_t bytes);

int trace_run_main(int argc, char** argv, const BackendRegistry* backends = nullptr);

/// `--list`: every method's inputs and outputs, then the shared buffers (if any).
int list_methods(const ProgramFile& file, const TraceRunOptions& options);
/// Runs one method and prints its outputs (and timings).
int run_method(const ProgramFile& file, const TraceRunOptions& options);
/// Runs every test case of a bundle and checks its outputs.
int run_bundle(const ProgramFile& file, const TraceRunOptions& options);
/// Runs `options.calls` in order over the program's shared state.
int run_calls(const ProgramFile& file, const TraceRunOptions& options);

}  // namespace etkit::tools
