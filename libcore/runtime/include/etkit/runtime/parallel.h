#pragma once

// Parallel loops for kernels.
//
// The runtime defines the interface and never starts a thread: a host that wants kernels to use
// several threads implements `ParallelRunner` (etkit/host/thread_pool.h does) and attaches it to
// a method (`Method::set_parallel_runner`); each kernel call then finds it in its
// `KernelContext`. Without one, `parallel_for` calls the work once, inline, over the whole range,
// so an embedded build pays one branch.
//
// Work is a function pointer and a context pointer, so a call allocates nothing. Chunks are
// contiguous item ranges decided only by the item count, the grain and the runner's thread count;
// a kernel that computes each item the same way whatever range it sits in gives results that do
// not depend on the number of threads.

#include <cstdint>

namespace etkit {

/// Work over items [begin, end); `ctx` is the caller's.
using ParallelFn = void (*)(void* ctx, int64_t begin, int64_t end);
/// One task of a `ParallelRunner::run` call: task number `task` of the call.
using ParallelTaskFn = void (*)(void* ctx, int task);

/// Runs tasks on several threads. Implemented by the host; the runtime only calls it.
class ParallelRunner {
 public:
  virtual ~ParallelRunner() = default;
  /// Threads that run tasks, counting the caller; at least 1.
  virtual int num_threads() const = 0;
  /// Calls `fn(ctx, t)` once for every t in [0, tasks), on any of the threads (the caller's
  /// included), and returns when every call has returned. Must not allocate. Not reentrant: a
  /// task must not call `run` on the same runner, and one caller at a time.
  virtual void run(int tasks, ParallelTaskFn fn, void* ctx) = 0;
};

/// Calls `fn(ctx, begin, end)` over contiguous chunks that cover [0, n), each at least `grain`
/// items (except when n itself is smaller), at most one chunk per thread of `runner`, sizes
/// differing by at most one item. Inline as a single `fn(ctx, 0, n)` when `runner` is null or
/// has one thread or `n < 2 * grain`. Nothing for n <= 0.
void parallel_for(ParallelRunner* runner, int64_t n, int64_t grain, ParallelFn fn, void* ctx);

/// `parallel_for` over a callable `f(begin, end)` (a lambda), without copying or allocating it.
template <typename F>
void parallel_for(ParallelRunner* runner, int64_t n, int64_t grain, const F& f) {
  parallel_for(
      runner, n, grain,
      [](void* ctx, int64_t begin, int64_t end) { (*static_cast<const F*>(ctx))(begin, end); },
      const_cast<void*>(static_cast<const void*>(&f)));
}

/// The chunk count `parallel_for` uses for n items of `grain` on `threads` threads (>= 1 for
/// n > 0). Exposed for tests and for kernels that size per-chunk state.
int parallel_chunks(int threads, int64_t n, int64_t grain);

}  // namespace etkit
