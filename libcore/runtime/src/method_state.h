#pragma once

// Private: the runtime form of a loaded method, shared by the loader (method_loader.cpp) and
// the interpreter (method.cpp). Everything here lives in the method allocator.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "etkit/runtime/backend.h"
#include "etkit/runtime/method.h"
#include "program_internal.h"

namespace etkit::detail {

enum class InstrKind : uint8_t { Kernel, Delegate, Move, JumpFalse, Free };

struct Instr {
  InstrKind kind;
  uint32_t a = 0;  // op index | delegate index | move from | cond value | freed value
  uint32_t b = 0;  // move to | jump destination
  KernelFn fn = nullptr;
  EValue** args = nullptr;
  uint32_t num_args = 0;
};

struct ChainState {
  Instr* instrs = nullptr;
  uint32_t size = 0;
};

struct DelegateState {
  const Backend* backend = nullptr;
  DelegateHandle* handle = nullptr;
  std::string_view backend_name;
  char label[80] = {};  // "delegate XnnpackBackend"
};

struct MethodState {
  const Program* program = nullptr;
  const fb::ExecutionPlan* plan = nullptr;
  MemoryAllocator* temp = nullptr;
  EValue* values = nullptr;
  uint32_t num_values = 0;
  ChainState* chains = nullptr;
  uint32_t num_chains = 0;
  std::string_view* op_names = nullptr;
  std::string_view* native_call_names = nullptr;  // "native_call_<op>.<overload>" per operator
  uint32_t num_ops = 0;
  DelegateState* delegates = nullptr;
  uint32_t num_delegates = 0;
  uint32_t num_delegates_initialized = 0;
  // Bytes the delegates' init took from the method allocator, all delegates together.
  uint64_t delegate_init_bytes = 0;
  // The most temp-allocator bytes in use after a kernel or delegate call, over all executions.
  size_t temp_peak = 0;
  // Per value: memory comes from the plan or the program (not bindable by the caller).
  bool* owns_memory = nullptr;
  EventTracer* tracer = nullptr;
  ParallelRunner* parallel = nullptr;
  uint64_t instruction_limit = Method::kDefaultInstructionLimit;
};

/// Loads method `plan` of `program` into `memory`'s method allocator. On failure, delegates
/// initialised so far are destroyed.
Result<MethodState*> load_method_state(const Program& program, const fb::ExecutionPlan* plan,
                                       const MemoryManager& memory, const KernelRegistry& kernels,
                                       const BackendRegistry& backends, EventTracer* tracer);

/// Releases the delegates of a loaded method (its memory belongs to the caller).
void destroy_delegates(MethodState* state);

/// Upper bound of what `load_method_state` takes from the method allocator.
size_t estimate_method_bytes(const fb::ExecutionPlan* plan);

/// The plan called `name`, or null.
const fb::ExecutionPlan* find_plan(const Program& program, std::string_view name);

}  // namespace etkit::detail
