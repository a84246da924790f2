#pragma once

// Kernels and their registry.
//
// A kernel implements one operator overload with ExecuTorch's out-variant calling convention: it
// receives the values of the operator's schema arguments, in schema order, plus one trailing
// return slot (the out tensor again, or a TensorList of out tensors). A kernel reports failure
// through its `KernelContext` and never aborts; the method then stops with an error naming the
// operator and the instruction.

#include <cstdarg>
#include <cstddef>
#include <span>
#include <string_view>

#include "etkit/runtime/dtype_set.h"
#include "etkit/runtime/error.h"
#include "etkit/runtime/evalue.h"
#include "etkit/runtime/memory.h"
#include "etkit/runtime/parallel.h"

namespace etkit {

/// Per-call state handed to a kernel.
class KernelContext {
 public:
  explicit KernelContext(MemoryAllocator* temp = nullptr, ParallelRunner* parallel = nullptr)
      : temp_(temp), parallel_(parallel) {}

  /// Records a failure; the first one wins. The kernel should return right after.
  void fail(ErrorCode code, const char* format, ...) __attribute__((format(printf, 3, 4)));
  bool failed() const { return !error_.ok(); }
  const Error& error() const { return error_; }
  void clear() { error_ = Error(); }

  /// Scratch memory valid for this call only; null if the method has none.
  MemoryAllocator* temp_allocator() const { return temp_; }

  /// Threads the kernel may split its work over (parallel.h); null: run on the caller's only.
  ParallelRunner* parallel() const { return parallel_; }

 private:
  MemoryAllocator* temp_;
  ParallelRunner* parallel_;
  Error error_;
};

/// A kernel function. `args` holds one pointer per schema argument plus the return slot.
using KernelFn = void (*)(KernelContext& ctx, std::span<EValue*> args);

/// One registry entry: the operator's full name `namespace::op.overload` (or `namespace::op` for
/// the default overload), its function and the dtypes it takes.
struct KernelEntry {
  std::string_view name;
  KernelFn fn;
  /// The dtypes the kernel takes for the operator's principal tensor: the argument named `self`
  /// or `input` when the schema has one (where.self_out: `self`, not `condition`), else its first
  /// tensor or tensor-list argument (embedding's `weight`, cat's `tensors`, pow.Scalar_out's
  /// `exponent`), or, for an operator without a tensor input (full, arange, rand, ...), its out.
  /// Other tensors may be constrained further (an index is int64, a mask bool); a dtype here is
  /// one a call can succeed with, one outside it is refused (`InvalidType`). Empty: not stated (an
  /// entry written as `{name, fn}`, e.g. a user's own kernel); `trace-run --list-kernels` shows
  /// it as unknown.
  DtypeSet dtypes = {};
};

/// Kernels by name. Lookups are exact string matches.
///
/// Building a registry allocates (host code); lookups do not. Not thread-safe while adding.
class KernelRegistry {
 public:
  KernelRegistry();
  ~KernelRegistry();
  KernelRegistry(const KernelRegistry&) = delete;
  KernelRegistry& operator=(const KernelRegistry&) = delete;

  /// Adds `entries`. Errors: `InvalidArgument` if a name is already registered (nothing is added
  /// after the duplicate).
  Error add(std::span<const KernelEntry> entries);
  /// The kernel for `name`, or null.
  KernelFn find(std::string_view name) const;
  /// Every registered name, sorted.
  std::span<const KernelEntry> entries() const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace etkit
