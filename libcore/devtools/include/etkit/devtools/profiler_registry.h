#pragma once

// The registry of profiler backends by device type (host code).
//
// Three ways in:
//   - static registration: `ETKIT_REGISTER_PROFILER(Factory)` at namespace scope in any file
//     linked into the program or into a shared library (the built-in `cpu`, `perf` and `sim`
//     register this way);
//   - late registration: `ProfilerRegistry::global().add_factory(type, factory)` at any time;
//     the factory runs when the device is first asked for;
//   - a plugin: a shared library that registers itself from a static initializer, loaded with
//     `load_profiler_plugin` (trace-run --profiler-plugin; samples/profiler-plugin/).
// A backend registered while a run is active takes part from the next run on: the controller
// resolves devices at the start of each run when the registry changed (see `generation`).
// Thread-safe.

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/devtools/profiler.h"

namespace etkit::prof {

using BackendFactory = std::function<std::unique_ptr<ProfilerBackend>()>;

class ProfilerRegistry {
 public:
  ProfilerRegistry() = default;
  ProfilerRegistry(const ProfilerRegistry&) = delete;
  ProfilerRegistry& operator=(const ProfilerRegistry&) = delete;

  /// The process-wide registry (holds the built-in backends and plugins).
  static ProfilerRegistry& global();

  /// Registers `factory` for `device_type`. Errors: `InvalidArgument` for an empty type or one
  /// with a comma or blank, `InvalidState` when the type is already registered.
  Error add_factory(std::string device_type, BackendFactory factory);
  /// Registers a backend object (its `device_type()`). Errors as `add_factory`.
  Error add(std::unique_ptr<ProfilerBackend> backend);
  /// Removes a device type (tests). False when it was not registered.
  bool remove(std::string_view device_type);

  /// The backend for `device_type`, created by its factory on first use; null when none is
  /// registered (or the factory returned null). The backend lives as long as the registry.
  ProfilerBackend* find(std::string_view device_type);
  bool has(std::string_view device_type) const;
  /// Registered device types, sorted.
  std::vector<std::string> device_types() const;
  /// Changes whenever a backend is added or removed.
  uint64_t generation() const;

 private:
  struct Entry {
    std::string type;
    BackendFactory factory;
    std::unique_ptr<ProfilerBackend> backend;
  };
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Entry>> entries_;
  uint64_t generation_ = 0;
};

/// Registers a factory in the global registry from a static initializer. A failure (duplicate
/// type) is kept in `error` rather than reported: the first registration wins.
struct ProfilerRegistration {
  ProfilerRegistration(const char* device_type, BackendFactory factory);
  Error error;
};

#define ETKIT_PROFILER_CONCAT2(a, b) a##b
#define ETKIT_PROFILER_CONCAT(a, b) ETKIT_PROFILER_CONCAT2(a, b)
/// `ETKIT_REGISTER_PROFILER("npu", [] { return std::make_unique<NpuProfiler>(); });`
#define ETKIT_REGISTER_PROFILER(device_type, factory)                              \
  static const ::etkit::prof::ProfilerRegistration ETKIT_PROFILER_CONCAT(          \
      etkit_profiler_registration_, __LINE__)(device_type, factory)

/// What loading a plugin did.
struct PluginLoad {
  std::vector<std::string> added;  ///< Device types the plugin registered.
};

/// Loads the shared library at `path` (dlopen, kept loaded) into the global registry; a library
/// loaded before adds nothing and is not an error. Errors
/// name the file: `AccessFailed` "PATH: cannot load profiler plugin: <dlerror's reason>",
/// `NotFound` "PATH: the plugin registered no profiler backend" (also when its static
/// registrations all collided with existing types).
Result<PluginLoad> load_profiler_plugin(const std::string& path);

}  // namespace etkit::prof
