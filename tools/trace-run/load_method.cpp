// Loading a method with the memory the flags give, and saying which flag gives more when it
// runs out.

#include <unistd.h>

#include <set>
#include <string>

#include "etkit/host/default_registries.h"
#include "etkit/tools/diagnostics.h"
#include "etkit/tools/size_arg.h"
#include "trace_run.h"

namespace etkit::tools {

namespace {

// The machine's physical memory, read once; 0 when unknown.
uint64_t physical_memory() {
  static const uint64_t bytes = [] {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page)
                                 : uint64_t{0};
  }();
  return bytes;
}

bool has_delegates(const MethodMeta& meta) {
  for (size_t i = 0; i < meta.num_instructions(); ++i) {
    if (meta.instruction_name(i).starts_with("delegate ")) return true;
  }
  return false;
}

}  // namespace

RunnerOptions runner_options(const TraceRunOptions& options, EventTracer* tracer) {
  RunnerOptions runner;
  runner.max_memory = options.max_memory;
  runner.delegate_bytes = options.delegate_memory;
  runner.backends = options.backends;
  runner.tracer = tracer;
  runner.parallel = options.parallel;
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
  const uint64_t machine = physical_memory();
  std::string advice;
  if (meta.ok() && meta->planned_bytes() > options.max_memory) {
    const uint64_t plan = meta->planned_bytes();
    advice = machine != 0 && plan > machine
                 ? " (the plan needs " + format_size(plan) + ", more than this machine's " +
                       format_size(machine) + ")"
                 : " (raise it with --max-memory " + size_flag_value(plan) + ")";
  } else if (meta.ok() && has_delegates(*meta)) {
    // Beyond the plan, method memory is what delegates allocate at init.
    advice = machine != 0 && options.delegate_memory >= machine
                 ? " (delegates get --delegate-memory " + size_flag_value(options.delegate_memory) +
                       " beyond the plan, already as much as this machine's " +
                       format_size(machine) + ")"
                 : " (delegates get --delegate-memory " + size_flag_value(options.delegate_memory) +
                       " beyond the plan; raise it)";
  }
  print_error(kTraceRun, std::string(e.message()) + advice);
  return kExitInvalidInput;
}

}  // namespace etkit::tools
