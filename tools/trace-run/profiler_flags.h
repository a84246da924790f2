#pragma once

// trace-run's profiler flags: --profiler DEVICES, --strict-profiler, --profiler-plugin LIB.so.

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace etkit::tools {

struct TraceRunOptions;

/// The profiler flags as given.
struct ProfilerFlags {
  std::vector<std::string> devices;  ///< Each --profiler value (comma-separated lists).
  bool strict = false;
  std::vector<std::string> plugins;
};

/// Declares the flags on `app`; values land in `flags`.
void add_profiler_flags(CLI::App& app, ProfilerFlags& flags);
/// Loads the plugins and fills `options.trace`; prints and returns the exit code on error
/// (0 on success).
int apply_profiler_flags(const ProfilerFlags& flags, TraceRunOptions& options);

}  // namespace etkit::tools
