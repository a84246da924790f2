#include "etkit/host/thread_pool.h"

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "etkit/runtime/error.h"

namespace etkit {

namespace {

// How long a worker polls for the next call before it sleeps (tens of microseconds): enough that a
// run of kernels keeps its workers awake, short enough that a pool between runs costs nothing.
constexpr int kSpinPolls = 2000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

// A call is published as `state` = generation << 32 | next task. A worker claims a task with a
// compare-and-swap on `state`, so a worker that wakes late, after its call has finished and the
// next one began, cannot take a task of the wrong call; and the caller returns as soon as every
// task is done, without waiting for workers that have not woken up (on a loaded machine that can
// be a whole scheduling slice): it takes the remaining tasks itself.
//
// A call's fields (fn, ctx, tasks, done) are rewritten only after `state` has been closed (its
// task index set past any count), and every access to them and to `state` is sequentially
// consistent. A late worker that read the previous call's `state` and then this call's fields
// therefore fails its compare-and-swap: the closing store comes between its read of `state` and
// its swap. Without the closing store it could claim task k of the new call under the old
// generation and run it twice (and `done` would overshoot `tasks`, which hung the caller).
struct ThreadPool::Impl {
  int threads = 1;
  std::vector<pthread_t> workers;

  // The current call; written before `state` publishes it.
  std::atomic<ParallelTaskFn> fn{nullptr};
  std::atomic<void*> ctx{nullptr};
  std::atomic<int> tasks{0};
  std::atomic<uint64_t> state{0};
  std::atomic<int> done{0};  // tasks of the current call that have returned
  std::atomic<bool> stop{false};

  std::mutex mutex;
  std::condition_variable wake;      // a new call, or stop
  std::condition_variable finished;  // done reached tasks

  static uint32_t generation_of(uint64_t s) { return static_cast<uint32_t>(s >> 32); }
  static constexpr uint64_t kClosed = 0xffffffffu;  // a task index no call reaches

  // Takes and runs tasks of call `generation` until none is left (or another call began).
  void take_tasks(uint32_t generation) {
    for (;;) {
      uint64_t s = state.load();
      if (generation_of(s) != generation || (s & kClosed) == kClosed) return;
      const int total = tasks.load();
      const auto task = static_cast<int64_t>(s & kClosed);
      if (task >= total) return;
      const ParallelTaskFn f = fn.load();
      void* const c = ctx.load();
      // Success proves that `state` did not move since it was read, so neither the closing
      // store of a next call nor its fields came in between: f, c and total were this call's.
      if (!state.compare_exchange_weak(s, s + 1)) continue;
      f(c, static_cast<int>(task));
      if (done.fetch_add(1) + 1 == total) {
        std::lock_guard<std::mutex> lock(mutex);
        finished.notify_one();
      }
    }
  }

  bool new_call(uint32_t seen) const {
    return stop.load(std::memory_order_acquire) ||
           generation_of(state.load(std::memory_order_acquire)) != seen;
  }

  void worker_loop() {
    uint32_t seen = 0;
    for (;;) {
      for (int i = 0; i < kSpinPolls && !new_call(seen); ++i) cpu_relax();
      if (!new_call(seen)) {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] { return new_call(seen); });
      }
      if (stop.load(std::memory_order_acquire)) return;
      seen = generation_of(state.load(std::memory_order_acquire));
      take_tasks(seen);
    }
  }

  static void* worker_main(void* arg) {
    static_cast<Impl*>(arg)->worker_loop();
    return nullptr;
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop.store(true, std::memory_order_release);
    }
    wake.notify_all();
    for (pthread_t t : workers) pthread_join(t, nullptr);
    workers.clear();
  }
};

Result<std::unique_ptr<ThreadPool>> ThreadPool::create(int threads) {
  if (threads < 1 || threads > kMaxThreads) {
    return Error(ErrorCode::InvalidArgument, "thread count %d is out of range 1 to %d", threads,
                 kMaxThreads);
  }
  auto impl = std::make_unique<Impl>();
  impl->threads = threads;
  impl->workers.reserve(static_cast<size_t>(threads - 1));
  for (int i = 1; i < threads; ++i) {
    pthread_t t;
    if (int rc = pthread_create(&t, nullptr, &Impl::worker_main, impl.get()); rc != 0) {
      impl->stop_workers();
      return Error(ErrorCode::Internal, "cannot start thread %d of %d: %s", i + 1, threads,
                   std::strerror(rc));
    }
    impl->workers.push_back(t);
  }
  return std::unique_ptr<ThreadPool>(new ThreadPool(std::move(impl)));
}

ThreadPool::ThreadPool(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ThreadPool::~ThreadPool() { impl_->stop_workers(); }

int ThreadPool::num_threads() const { return impl_->threads; }

void ThreadPool::run(int tasks, ParallelTaskFn fn, void* ctx) {
  if (tasks <= 0) return;
  Impl& p = *impl_;
  if (p.workers.empty() || tasks == 1) {
    for (int t = 0; t < tasks; ++t) fn(ctx, t);
    return;
  }
  // Every task of the previous call has returned, but a late worker may still be about to read
  // its `state` and these fields: close the call first (see Impl), then rewrite them.
  const uint64_t previous = p.state.load();
  const uint32_t generation = Impl::generation_of(previous) + 1;
  p.state.store((previous & ~Impl::kClosed) | Impl::kClosed);
  p.fn.store(fn);
  p.ctx.store(ctx);
  p.tasks.store(tasks);
  p.done.store(0);
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    p.state.store(uint64_t{generation} << 32);
  }
  p.wake.notify_all();
  p.take_tasks(generation);
  for (int i = 0; i < kSpinPolls && p.done.load(std::memory_order_acquire) != tasks; ++i) {
    cpu_relax();
  }
  if (p.done.load(std::memory_order_acquire) != tasks) {
    std::unique_lock<std::mutex> lock(p.mutex);
    p.finished.wait(lock, [&] { return p.done.load(std::memory_order_acquire) == tasks; });
  }
}

}  // namespace etkit
