// Loading a method with the memory the flags give, and saying which flag gives more when it
// runs out.

#include "etkit/tools/diagnostics.h"
#include "trace_run.h"

namespace etkit::tools {

RunnerOptions runner_options(const TraceRunOptions& options, EventTracer* tracer) {
  RunnerOptions runner;
  runner.max_memory = options.max_memory;
  runner.delegate_bytes = options.delegate_memory;
  runner.backends = options.backends;
  runner.tracer = tracer;
  return runner;
}

int report_load_error(const ProgramFile& file, const std::string& method, const Error& error,
                      const TraceRunOptions& options) {
  const Error e = error.with_context("%s", file.path().c_str());
  if (error.code() != ErrorCode::OutOfMemory) return report(kTraceRun, e);
  Result<MethodMeta> meta = file.program().method_meta(method);
  const bool plan_too_big = meta.ok() && meta->planned_bytes() > options.max_memory;
  // Beyond the plan, method memory is what delegates allocate at init.
  print_error(kTraceRun, std::string(e.message()) +
                             (plan_too_big ? " (raise it with --max-memory)"
                                           : " (delegates get --delegate-memory beyond the "
                                             "plan; raise it)"));
  return kExitInvalidInput;
}

}  // namespace etkit::tools
