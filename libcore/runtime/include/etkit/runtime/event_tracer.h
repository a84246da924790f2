#pragma once

// The event tracer interface: what the runtime reports while it loads and runs methods.
//
// Methods call a tracer around method execution and every instruction (profiling), after kernels
// and delegate calls (intermediate outputs) and at the end (program outputs). Backends call it to
// report their own events, live (start/end) or after the fact, by name or integer identifier,
// with metadata bytes, and to log their intermediate outputs. With no tracer attached the
// interpreter pays one predictable branch per instruction.
//
// Filtering belongs to every tracer: `set_filter` installs an `EventTracerFilterBase` that
// decides which intermediate outputs are logged (see event_filter.h for the concrete one).
//
// Tracers are not thread-safe: one method runs at a time.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "etkit/runtime/evalue.h"
#include "etkit/runtime/result.h"

namespace etkit {

using ChainId = int32_t;
using DebugHandle = uint32_t;
using DelegateDebugIntId = int32_t;
using AllocatorId = uint32_t;

/// Chain id outside any instruction.
inline constexpr ChainId kUnsetChainId = -1;
/// Debug handle (instruction index) outside any instruction.
inline constexpr DebugHandle kUnsetDebugHandle = 0;
/// "No integer delegate id" (the event is identified by name).
inline constexpr DelegateDebugIntId kUnsetDelegateDebugIntId = -1;

/// Which values are logged.
enum class DebugLevel : uint8_t {
  None = 0,                 ///< Nothing.
  ProgramOutputs = 1,       ///< The method's outputs after each execution.
  IntermediateOutputs = 2,  ///< Also every kernel's and delegate's outputs.
};

/// Which profiling events are recorded.
enum class ProfilingLevel : uint8_t {
  None = 0,        ///< No profiling events.
  MethodOnly = 1,  ///< Method::execute, Method::init, Program::load_method.
  All = 2,         ///< Also one event per instruction, per kernel call and delegate events.
};

/// Why a value is logged.
enum class LoggedValueKind : uint8_t { IntermediateOutput, ProgramOutput };

/// A started event, handed back to `end_profiling`.
struct TracerEntry {
  const char* name = nullptr;  ///< Name as given (must stay valid until the end call).
  size_t name_size = 0;
  ChainId chain = kUnsetChainId;
  DebugHandle handle = kUnsetDebugHandle;
  DelegateDebugIntId delegate_id = kUnsetDelegateDebugIntId;
  bool is_delegate = false;
  uint64_t start = 0;
};

/// Decides which intermediate outputs a tracer drops.
class EventTracerFilterBase {
 public:
  virtual ~EventTracerFilterBase() = default;
  /// True when the output called `name` (may be empty) with index `index` (-1 = none) is
  /// filtered out, false when it is logged. Errors stop the logging call and are returned by it.
  virtual Result<bool> filter(std::string_view name, int64_t index) = 0;
};

/// The tracer interface. The base class keeps the levels, the current instruction and the
/// filter; subclasses record events.
class EventTracer {
 public:
  virtual ~EventTracer() = default;

  // --- Recording (implemented by tracers). ---

  /// Starts a new group of events (one per method execution; ETDump's RunData).
  virtual void create_event_block(std::string_view name) = 0;
  /// Starts a profiling event; unset chain/handle take the current instruction's.
  virtual TracerEntry start_profiling(std::string_view name, ChainId chain = kUnsetChainId,
                                      DebugHandle handle = kUnsetDebugHandle) = 0;
  virtual void end_profiling(const TracerEntry& entry) = 0;
  /// Starts a delegate event identified by `name` or by `id` (exactly one must be set).
  virtual TracerEntry start_profiling_delegate(std::string_view name, DelegateDebugIntId id) = 0;
  /// Ends a delegate event, with optional backend-defined metadata bytes (copied).
  virtual void end_profiling_delegate(const TracerEntry& entry,
                                      std::span<const uint8_t> metadata = {}) = 0;
  /// Records a delegate event after the fact, with timestamps from the backend.
  virtual void log_profiling_delegate(std::string_view name, DelegateDebugIntId id,
                                      uint64_t start, uint64_t end,
                                      std::span<const uint8_t> metadata = {}) = 0;
  /// Records a delegate event identified by integer `id` that also carries a display `name`
  /// (ETDump's ProfileEvent `name` beside `delegate_debug_id_int`): XnnpackBackend names each
  /// node's event after the node's kind and identifies it by the node's debug handle. The
  /// default drops the name and calls `log_profiling_delegate({}, id, ...)`, so tracers that
  /// know only the one-identifier form still record the event.
  virtual void log_profiling_delegate_named(std::string_view name, DelegateDebugIntId id,
                                            uint64_t start, uint64_t end,
                                            std::span<const uint8_t> metadata = {}) {
    (void)name;
    log_profiling_delegate({}, id, start, end, metadata);
  }
  /// Registers an allocator in the current block; returns its 1-based id.
  virtual AllocatorId track_allocator(std::string_view name) = 0;
  virtual void track_allocation(AllocatorId id, size_t size) = 0;
  /// Records a value at the current instruction. Returns true when logged. Errors:
  /// `InvalidArgument` for value kinds that cannot be logged.
  virtual Result<bool> log_evalue(const EValue& value, LoggedValueKind kind) = 0;
  /// The tracer's clock, for backends that log after the fact.
  virtual uint64_t now() = 0;

 protected:
  /// Records a backend's intermediate output (called by `log_intermediate_output_delegate` once
  /// the arguments, the debug level and the filter have been checked).
  virtual Result<bool> record_delegate_output(std::string_view name, DelegateDebugIntId id,
                                              const EValue& value) = 0;

 public:

  // --- Filtered logging (non-virtual: the filter applies to every tracer). ---

  /// Logs the output of instruction `instruction`, operator `op_name`, when the debug level asks
  /// for intermediate outputs and the filter keeps it. Returns true when logged.
  Result<bool> log_instruction_output(std::string_view op_name, uint32_t instruction,
                                      const EValue& value);
  /// A backend's intermediate output, identified by `name` or by `id` (exactly one: otherwise
  /// `InvalidArgument`). Logged when the debug level asks for intermediate outputs and the filter
  /// keeps it; returns true when logged, false when filtered out or not asked for.
  Result<bool> log_intermediate_output_delegate(std::string_view name, DelegateDebugIntId id,
                                                const EValue& value);

  // --- State. ---

  void set_filter(EventTracerFilterBase* filter) { filter_ = filter; }
  EventTracerFilterBase* filter() const { return filter_; }
  void set_debug_level(DebugLevel level) { debug_level_ = level; }
  DebugLevel debug_level() const { return debug_level_; }
  void set_profiling_level(ProfilingLevel level) { profiling_level_ = level; }
  ProfilingLevel profiling_level() const { return profiling_level_; }
  /// Sets the instruction that events and values are attributed to.
  void set_chain_debug_handle(ChainId chain, DebugHandle handle) {
    chain_ = chain;
    handle_ = handle;
  }
  ChainId current_chain() const { return chain_; }
  DebugHandle current_handle() const { return handle_; }
  /// The bundled test case being run (-1: none), recorded on the next event block.
  void set_bundled_input_index(int32_t index) { bundled_input_index_ = index; }
  int32_t bundled_input_index() const { return bundled_input_index_; }

 private:
  EventTracerFilterBase* filter_ = nullptr;
  DebugLevel debug_level_ = DebugLevel::None;
  ProfilingLevel profiling_level_ = ProfilingLevel::All;
  ChainId chain_ = kUnsetChainId;
  DebugHandle handle_ = kUnsetDebugHandle;
  int32_t bundled_input_index_ = -1;
};

}  // namespace etkit
