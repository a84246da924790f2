// trace-run's profiler flags (DESIGN.md section 4, Tracing: profiler backends).

#include "profiler_flags.h"

#include <CLI/CLI.hpp>

#include <algorithm>

#include "etkit/devtools/profiler_registry.h"
#include "etkit/tools/diagnostics.h"
#include "trace_run.h"

namespace etkit::tools {

void add_profiler_flags(CLI::App& app, ProfilerFlags& flags) {
  app.add_option("--profiler", flags.devices,
                 "Profile on these devices too, e.g. cpu,perf,sim (comma-separated, repeatable; "
                 "needs --etdump); their events go into the dump");
  app.add_flag("--strict-profiler", flags.strict,
               "A --profiler device with no backend, or unavailable, is an error, not a warning");
  app.add_option("--profiler-plugin", flags.plugins,
                 "Load a profiler backend plugin (a shared library) before the run (repeatable)");
}

int apply_profiler_flags(const ProfilerFlags& flags, TraceRunOptions& options) {
  std::vector<std::string> devices;
  for (const std::string& list : flags.devices) {
    size_t begin = 0;
    while (true) {
      const size_t comma = list.find(',', begin);
      const std::string item =
          list.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
      if (item.empty()) {
        print_error(kTraceRun, "--profiler: empty device name in '" + list + "'");
        return kExitUsage;
      }
      if (std::find(devices.begin(), devices.end(), item) == devices.end()) devices.push_back(item);
      if (comma == std::string::npos) break;
      begin = comma + 1;
    }
  }
  if (!devices.empty() && options.trace.etdump_path.empty()) {
    print_error(kTraceRun, "--profiler needs --etdump FILE (device events go into the dump)");
    return kExitUsage;
  }
  if (flags.strict && devices.empty()) {
    print_error(kTraceRun, "--strict-profiler needs --profiler");
    return kExitUsage;
  }
  for (const std::string& path : flags.plugins) {
    Result<prof::PluginLoad> load = prof::load_profiler_plugin(path);
    if (!load.ok()) {
      print_error(kTraceRun, load.error().message());
      return kExitUsage;
    }
  }
  options.trace.profilers = std::move(devices);
  options.trace.strict_profiler = flags.strict;
  return kExitOk;
}

}  // namespace etkit::tools
