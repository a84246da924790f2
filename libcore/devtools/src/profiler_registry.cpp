// The profiler registry by device type, static registration and plugin loading (host code).

#include "etkit/devtools/profiler_registry.h"

#include <dlfcn.h>

#include <algorithm>

namespace etkit::prof {

ProfilerRegistry& ProfilerRegistry::global() {
  // Never destroyed: plugins and static registrations may outlive any static destructor order.
  static ProfilerRegistry* registry = new ProfilerRegistry();
  return *registry;
}

Error ProfilerRegistry::add_factory(std::string device_type, BackendFactory factory) {
  if (device_type.empty() || device_type.find_first_of(", \t\n") != std::string::npos) {
    return Error(ErrorCode::InvalidArgument, "bad profiler device type '%s' (empty, or with a comma or blank)",
                 device_type.c_str());
  }
  if (!factory) {
    return Error(ErrorCode::InvalidArgument, "profiler device type '%s': no factory",
                 device_type.c_str());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& e : entries_) {
    if (e->type == device_type) {
      return Error(ErrorCode::InvalidState, "profiler device type '%s' is already registered",
                   device_type.c_str());
    }
  }
  auto entry = std::make_unique<Entry>();
  entry->type = std::move(device_type);
  entry->factory = std::move(factory);
  entries_.push_back(std::move(entry));
  ++generation_;
  return Error();
}

Error ProfilerRegistry::add(std::unique_ptr<ProfilerBackend> backend) {
  if (backend == nullptr) return Error(ErrorCode::InvalidArgument, "null profiler backend");
  std::string type(backend->device_type());
  // The factory hands over the object once.
  auto shared = std::make_shared<std::unique_ptr<ProfilerBackend>>(std::move(backend));
  return add_factory(std::move(type), [shared]() { return std::move(*shared); });
}

bool ProfilerRegistry::remove(std::string_view device_type) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const auto& e) { return e->type == device_type; });
  if (it == entries_.end()) return false;
  entries_.erase(it);
  ++generation_;
  return true;
}

ProfilerBackend* ProfilerRegistry::find(std::string_view device_type) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& e : entries_) {
    if (e->type != device_type) continue;
    if (e->backend == nullptr && e->factory) {
      e->backend = e->factory();
      e->factory = nullptr;  // a factory runs once, even when it returns null
    }
    return e->backend.get();
  }
  return nullptr;
}

bool ProfilerRegistry::has(std::string_view device_type) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const auto& e) { return e->type == device_type; });
}

std::vector<std::string> ProfilerRegistry::device_types() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> types;
  types.reserve(entries_.size());
  for (const auto& e : entries_) types.push_back(e->type);
  std::sort(types.begin(), types.end());
  return types;
}

uint64_t ProfilerRegistry::generation() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return generation_;
}

ProfilerRegistration::ProfilerRegistration(const char* device_type, BackendFactory factory) {
  error = ProfilerRegistry::global().add_factory(device_type, std::move(factory));
}

Result<PluginLoad> load_profiler_plugin(const std::string& path) {
  ProfilerRegistry& registry = ProfilerRegistry::global();
  const std::vector<std::string> before = registry.device_types();
  // A path without a slash would make dlopen search the library path: say what was given.
  const std::string open_path = path.find('/') == std::string::npos ? "./" + path : path;
  // Loaded before: its backends are registered already.
  if (void* loaded = dlopen(open_path.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
    dlclose(loaded);
    return PluginLoad{};
  }
  dlerror();
  void* handle = dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    std::string reason = why == nullptr ? "unknown error" : why;
    // dlerror repeats the path first ("PATH: cannot open shared object file: ..."): keep the reason.
    const std::string prefix = open_path + ": ";
    if (reason.compare(0, prefix.size(), prefix) == 0) reason.erase(0, prefix.size());
    return Error(ErrorCode::AccessFailed, "%s: cannot load profiler plugin: %s", path.c_str(),
                 reason.c_str());
  }
  // The library stays loaded: its backends live in the registry.
  PluginLoad load;
  for (const std::string& type : registry.device_types()) {
    if (!std::binary_search(before.begin(), before.end(), type)) load.added.push_back(type);
  }
  if (load.added.empty()) {
    return Error(ErrorCode::NotFound, "%s: the plugin registered no profiler backend", path.c_str());
  }
  return load;
}

}  // namespace etkit::prof
