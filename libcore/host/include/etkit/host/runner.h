#pragma once

// Host-side running of programs: open a `.pte` or `.bpte` file (with optional `.ptd` data),
// give a method the memory it needs, and check bundled test cases.
//
// This is the layer a tool drives: it owns files, planned buffers and allocator memory (it
// allocates, once, before running) and hands the runtime caller-owned memory. Errors name the
// file they come from.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/host/default_registries.h"
#include "etkit/runtime/backend.h"
#include "etkit/host/bundled_program.h"
#include "etkit/runtime/kernel.h"
#include "etkit/runtime/method.h"
#include "etkit/runtime/program.h"

namespace etkit {

/// Planned buffers that outlive one method: the arenas of shared state (shared_memory.h), lent
/// to every method loaded with them. The runner asks which memory ids are shared and binds
/// those ids to the arena instead of a buffer of the method's own.
class SharedArenas {
 public:
  virtual ~SharedArenas() = default;
  /// The shared memory ids, ascending.
  virtual std::span<const uint32_t> memory_ids() const = 0;
  /// The arena of `memory_id`, one of `memory_ids()`; empty for any other id. It is already
  /// initialised: methods bind their tensors in it without copying initial values.
  virtual std::span<uint8_t> arena(uint32_t memory_id) = 0;
};

/// Limits and registries for loading methods.
struct RunnerOptions {
  /// Largest total of planned buffers and unplanned outputs a method may ask for; larger plans
  /// fail before allocating.
  uint64_t max_memory = uint64_t{1} << 30;
  /// Method memory beyond what the program plans, for what delegates allocate at init (their
  /// scratch and copies). Reserved zero-filled by calloc, so pages never touched cost nothing.
  size_t delegate_bytes = size_t{64} << 20;
  /// Scratch memory kernels may use within one instruction; more when a kernel call needs room
  /// for float32 copies of its Half/BFloat16 tensors (`MethodMeta::float16_copy_bytes`), up to
  /// `max_memory`.
  size_t temp_bytes = size_t{16} << 20;
  /// Kernels to resolve operators with; null means `default_kernel_registry()`.
  const KernelRegistry* kernels = nullptr;
  /// Backends for delegates; null means `default_backend_registry()` (EtkitFusedBackend).
  const BackendRegistry* backends = nullptr;
  /// Tracer to attach to loaded methods (loading and every execution are recorded); not owned.
  EventTracer* tracer = nullptr;
  /// Threads for kernels to split their work over (thread_pool.h); null: one thread. Not owned;
  /// must outlive the loaded methods' executions.
  ParallelRunner* parallel = nullptr;
  /// Shared state of the program (shared_memory.h): the memory ids it shares are backed by its
  /// arenas, pre-initialised, instead of the method's own buffers. Null: nothing is shared.
  /// Not owned; must come from the same program and outlive the loaded methods.
  SharedArenas* shared_memory = nullptr;
};

/// An opened program file: a `.pte`, or a `.bpte` with its embedded program. Movable.
class ProgramFile {
 public:
  /// Opens `path` and, if `ptd_path` is not empty, external data from it. Errors name the file:
  /// "PATH: not an ExecuTorch program: ...".
  static Result<ProgramFile> open(const std::string& path, const std::string& ptd_path = "");

  ProgramFile(ProgramFile&&) noexcept;
  ProgramFile& operator=(ProgramFile&&) noexcept;
  ~ProgramFile();

  const std::string& path() const;
  const Program& program() const;
  /// The bundle, for `.bpte` files; null otherwise.
  const BundledProgram* bundle() const;

 private:
  struct Impl;
  explicit ProgramFile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// One planned buffer of a loaded method: memory id `memory_id` (from 1) of `bytes`, backed by
/// a shared-state arena when `shared`.
struct PlannedBufferUse {
  uint32_t memory_id = 0;
  uint64_t bytes = 0;
  bool shared = false;
};

/// What a loaded method holds and has used, for `trace-run --memory`.
struct MethodMemoryUse {
  std::vector<PlannedBufferUse> planned;  ///< By memory id, ascending.
  uint64_t method_allocator_used = 0;     ///< Bytes taken by load and delegate init.
  uint64_t method_allocator_capacity = 0; ///< The program's estimate plus --delegate-memory.
  uint64_t delegate_init_bytes = 0;       ///< Part of `method_allocator_used` delegates took.
  uint64_t temp_peak = 0;                 ///< Most temp-allocator bytes in use at once so far.
  uint64_t temp_capacity = 0;
  uint64_t unplanned_output_bytes = 0;    ///< Host buffers of outputs the plan leaves out.
};

/// One loaded method with the memory it runs in: method allocator, planned buffers (one per
/// memory id), temp allocator, and buffers for unplanned outputs. Movable.
class LoadedMethod {
 public:
  /// Errors: `OutOfMemory` if the plan exceeds `options.max_memory` ("memory plan needs N
  /// bytes, above the limit of M bytes") or the unplanned outputs exceed what it leaves, and
  /// whatever `Method::load` reports.
  static Result<LoadedMethod> load(const Program& program, std::string_view name,
                                   const RunnerOptions& options);

  LoadedMethod(LoadedMethod&&) noexcept;
  LoadedMethod& operator=(LoadedMethod&&) noexcept;
  ~LoadedMethod();

  Method& method();
  const Method& method() const;
  /// Bytes of planned memory allocated for the method.
  uint64_t planned_bytes() const;
  /// The memory the method holds and has used so far (the temp peak grows with executions).
  MethodMemoryUse memory_use() const;

 private:
  struct Impl;
  explicit LoadedMethod(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The result of one bundled test case.
struct BundledCaseResult {
  std::string method;
  size_t test_case = 0;
  bool passed = true;
  std::vector<std::string> failures;  ///< "output 0: element 3: 2.5 != 2 (...)"
};

/// Feeds test case `test_case` of suite `suite` to `method`, executes it and checks every
/// output. Errors: a failure to set inputs or to execute.
Result<BundledCaseResult> run_bundled_case(Method& method, const BundledProgram& bundle,
                                           size_t suite, size_t test_case);

}  // namespace etkit
