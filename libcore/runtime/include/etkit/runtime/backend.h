#pragma once

// Delegates: the backend interface and a registry by backend name.
//
// A program's DelegateCall hands a subgraph to a backend (XnnpackBackend, QnnBackend, ...). The
// backend is initialised once per delegate when the method loads, with the processed blob and the
// compile specs, and executed at each DelegateCall with the call's values (inputs, then outputs).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "etkit/runtime/evalue.h"
#include "etkit/runtime/event_tracer.h"
#include "etkit/runtime/memory.h"
#include "etkit/runtime/named_data_map.h"
#include "etkit/runtime/result.h"

namespace etkit {

/// One compile spec of a delegate: a key and opaque bytes.
struct CompileSpec {
  std::string_view key;
  std::span<const uint8_t> value;
};

/// What a backend sees when a method loads one of its delegates.
struct BackendInitContext {
  /// The method's allocator; what the backend allocates here lives as long as the method.
  MemoryAllocator* allocator = nullptr;
  std::string_view method_name;
  /// The tracer attached at load, or null.
  EventTracer* event_tracer = nullptr;
  /// The program's named data (its own `named_data` segments, then the external data file), for
  /// delegates whose blobs name their constants by key; valid during `init` only (the bytes it
  /// returns live as long as the program). Null when there is none to offer.
  const NamedDataMap* named_data = nullptr;
};

/// What a backend sees at each DelegateCall.
struct BackendExecutionContext {
  /// The tracer to report delegate events and intermediate outputs to, or null.
  EventTracer* event_tracer = nullptr;
  /// Scratch memory valid for this call only, or null.
  MemoryAllocator* temp_allocator = nullptr;
  std::string_view method_name;
};

/// Opaque per-delegate state returned by `Backend::init`.
using DelegateHandle = void;

/// A delegate backend. Implementations must be thread-compatible: one method at a time.
class Backend {
 public:
  virtual ~Backend() = default;
  /// The name programs use, e.g. "XnnpackBackend".
  virtual std::string_view name() const = 0;
  /// False if the backend is compiled in but cannot run here (missing hardware).
  virtual bool is_available() const { return true; }
  /// Prepares one delegate. `processed` stays valid as long as the program.
  virtual Result<DelegateHandle*> init(BackendInitContext& ctx, std::span<const uint8_t> processed,
                                       std::span<const CompileSpec> compile_specs) const = 0;
  /// Runs one delegate call. `args` are the call's values: inputs first, then outputs.
  virtual Error execute(BackendExecutionContext& ctx, DelegateHandle* handle,
                        std::span<EValue*> args) const = 0;
  /// Releases what `init` set up (memory from the init allocator is not freed here).
  virtual void destroy(DelegateHandle* /*handle*/) const {}
};

/// Backends by name. The registry does not own the backends.
class BackendRegistry {
 public:
  static constexpr size_t kMaxBackends = 16;

  /// Adds `backend`, which must outlive the registry. Errors: `InvalidArgument` for a duplicate
  /// name, `OutOfMemory` past `kMaxBackends`.
  Error add(const Backend* backend);
  /// The backend called `name`, or null.
  const Backend* find(std::string_view name) const;
  size_t size() const { return size_; }

 private:
  const Backend* backends_[kMaxBackends] = {};
  size_t size_ = 0;
};

}  // namespace etkit
