// Loading a method with the memory the flags give, and saying which flag gives more when it
// runs out.

#include <set>
#include <string>

#include "etkit/host/default_registries.h"
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

namespace {

// Every operator `method` calls that the default registry lacks, in first-use order: the load
// error names only the first (the runtime's message has no room for all of them).
std::string unregistered_operators(const ProgramFile& file, const std::string& method) {
  Result<MethodMeta> meta = file.program().method_meta(method);
  if (!meta.ok()) return "";
  std::set<std::string> seen;
  std::string list;
  for (size_t i = 0; i < meta->num_instructions(); ++i) {
    const std::string name = meta->instruction_name(i);
    if (name.find("::") == std::string::npos || !seen.insert(name).second) continue;
    if (default_kernel_registry().find(name) != nullptr) continue;
    list += (list.empty() ? "" : ", ") + name;
  }
  return list;
}

}  // namespace

int report_load_error(const ProgramFile& file, const std::string& method, const Error& error,
                      const TraceRunOptions& options) {
  const Error e = error.with_context("%s", file.path().c_str());
  if (error.code() == ErrorCode::NotImplemented) {
    const int code = report(kTraceRun, e);
    const std::string missing = unregistered_operators(file, method);
    if (missing.find(", ") != std::string::npos) {
      print_warning(kTraceRun, "operators not registered: " + missing);
    }
    return code;
  }
  if (error.code() != ErrorCode::OutOfMemory) return report(kTraceRun, e);
  Result<MethodMeta> meta = file.program().method_meta(method);
  const bool plan_too_big = meta.ok() && meta->planned_bytes() > options.max_memory;
  // Beyond the plan, method memory is what delegates allocate at init.
  print_error(kTraceRun, std::string(e.message()) +
                             (plan_too_big ? " (raise it with --max-memory)"
                                           : " (delegates get --delegate-memory beyond the "
                                             "plan; raise it)"));
  return kExitFailure;
}

}  // namespace etkit::tools
