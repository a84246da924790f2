#pragma once

// A fixed pool of worker threads that runs kernels' parallel loops (etkit/runtime/parallel.h).
//
// Created once, before any execution, with all its threads started: `run` then allocates nothing
// and creates no thread, so an execution with a pool stays allocation-free. The caller's thread
// takes tasks too, so a pool of N threads starts N - 1 workers. Workers that find no work spin
// briefly (a kernel usually follows a kernel) and then sleep on a condition variable, so an idle
// pool costs nothing on a machine shared with other work.

#include <memory>

#include "etkit/runtime/parallel.h"
#include "etkit/runtime/result.h"

namespace etkit {

class ThreadPool final : public ParallelRunner {
 public:
  /// The most threads a pool takes (`create` refuses more).
  static constexpr int kMaxThreads = 256;

  /// A pool of `threads` threads counting the caller (so `threads - 1` workers are started).
  /// Errors: `InvalidArgument` unless 1 <= threads <= kMaxThreads ("thread count N is out of
  /// range 1 to 256"); `Internal` if the system refuses a thread (the message has its reason).
  static Result<std::unique_ptr<ThreadPool>> create(int threads);

  /// Stops and joins the workers; no `run` may be in progress.
  ~ThreadPool() override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const override;
  /// See `ParallelRunner::run`. Tasks are handed out in order from a shared counter; the caller
  /// takes them as well, so a call never waits for a worker that has not woken up: it returns
  /// once every task has returned. One caller at a time.
  void run(int tasks, ParallelTaskFn fn, void* ctx) override;

  struct Impl;

 private:
  explicit ThreadPool(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace etkit
