#pragma once

// `Method`: one loaded method of a program, ready to execute.
//
// Loading resolves every value, binds planned tensors to the caller's planned memory, copies
// initial values of mutable tensors, looks up every operator's kernel and initialises every
// delegate. Everything lives in the memory manager's buffers; `execute()` allocates nothing.
// Several methods of one program can be loaded side by side, each with its own memory manager.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "etkit/runtime/backend.h"
#include "etkit/runtime/evalue.h"
#include "etkit/runtime/event_tracer.h"
#include "etkit/runtime/kernel.h"
#include "etkit/runtime/memory.h"
#include "etkit/runtime/parallel.h"
#include "etkit/runtime/program.h"
#include "etkit/runtime/result.h"

namespace etkit {

namespace detail {
struct MethodState;
}

/// A loaded method. Movable, not copyable. Destroying it releases its delegates.
class Method {
 public:
  /// Loads method `name` of `program`. `program`, `memory`'s buffers and the registries must
  /// outlive the method. Errors: `NotFound` (no such method), `OutOfMemory` (method allocator too
  /// small), `NotImplemented` (an operator without a kernel, or a backend that is not registered:
  /// "backend 'NAME' is not available"), `NotSupported` (DYNAMIC_UNBOUND tensors),
  /// `InvalidProgram`. With `tracer`, loading is recorded in a block "<name>:load"
  /// (`Program::load_method`, `Method::init`, the method and planned memory) and the tracer
  /// stays attached for execution.
  static Result<Method> load(const Program& program, std::string_view name,
                             const MemoryManager& memory, const KernelRegistry& kernels,
                             const BackendRegistry& backends, EventTracer* tracer = nullptr);

  Method(Method&& other) noexcept;
  Method& operator=(Method&& other) noexcept;
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;
  ~Method();

  std::string_view name() const;
  size_t num_inputs() const;
  size_t num_outputs() const;
  size_t num_instructions() const;
  /// Bytes the delegates' `init` took from the method allocator (0 without delegates).
  uint64_t delegate_init_bytes() const;
  /// The most temp-allocator bytes one kernel or delegate call has held, over every
  /// `execute()` so far (0 before the first).
  size_t temp_peak() const;
  /// Static description of the method (shapes are upper bounds).
  MethodMeta meta() const;

  /// Sets input `i`. A tensor input is resized to `value`'s sizes (only dynamic tensors may
  /// change shape), then copied into planned memory, or, if unplanned, bound to `value`'s memory
  /// (which must outlive the next `execute()`). A primitive input must equal the program's value
  /// (doubles within 1e-4 absolute + 1e-5 relative). Errors: `InvalidArgument`, `InvalidType`.
  Error set_input(size_t i, const EValue& value);

  /// Binds caller memory to unplanned output `i`. Errors: `InvalidArgument` if the output is
  /// planned or constant, or `bytes` is smaller than the output.
  Error set_output_data(size_t i, void* data, size_t bytes);

  /// Attaches `tracer` (null detaches). Each `execute()` then records one event block named
  /// after the method: `Method::execute`, per instruction `OPERATOR_CALL` / `DELEGATE_CALL` /
  /// `MOVE_CALL` / `JF_CALL` / `FREE_CALL` and `native_call_<op>` per kernel (as the profiling
  /// level asks), kernel and delegate outputs and program outputs (as the debug level asks).
  void set_event_tracer(EventTracer* tracer);
  EventTracer* event_tracer() const;

  /// Lets kernels split their work over `runner`'s threads (parallel.h); null (the default):
  /// every kernel runs on the caller's thread. Not owned; must outlive the executions that use it.
  void set_parallel_runner(ParallelRunner* runner);
  ParallelRunner* parallel_runner() const;

  /// The most instructions one `execute()` may run before it stops with an error (default
  /// `kDefaultInstructionLimit`); a program's jump loops are untrusted. Fuzzers set it low.
  void set_instruction_limit(uint64_t limit);
  static constexpr uint64_t kDefaultInstructionLimit = 10'000'000;

  /// Runs every chain. Errors: a kernel failure (message names the instruction and operator),
  /// `InvalidState` for an input or output without memory, `DelegateFailed`, `Internal` when more
  /// than the instruction limit run.
  Error execute();

  /// Current value of input / output `i` (valid until the next call that changes the method).
  const EValue& input(size_t i) const;
  const EValue& output(size_t i) const;
  /// True if output `i` needs caller memory (`set_output_data`).
  bool output_needs_memory(size_t i) const;

  /// Name of instruction `i` for messages: "aten::add.out", "delegate XnnpackBackend",
  /// "move", "jump_false" or "free".
  std::string_view instruction_name(size_t i) const;

 private:
  explicit Method(detail::MethodState* state) : state_(state) {}
  detail::MethodState* state_ = nullptr;
};

}  // namespace etkit
