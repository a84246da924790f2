// ThreadPool: the thread counts it refuses, that every task of every call runs exactly once over
// many calls in a row (what a method's kernels do), and that a call's tasks do run in parallel.

#include <doctest/doctest.h>

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "etkit/host/thread_pool.h"

namespace etkit {
namespace {

TEST_CASE("thread pool: thread counts out of range are refused") {
  for (int bad : {0, -1, ThreadPool::kMaxThreads + 1}) {
    Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::create(bad);
    REQUIRE_FALSE(pool.ok());
    CHECK(pool.error().code() == ErrorCode::InvalidArgument);
    CHECK(std::string(pool.error().message()) ==
          "thread count " + std::to_string(bad) + " is out of range 1 to 256");
  }
}

struct Counts {
  std::vector<std::atomic<int>> hits;
  std::atomic<int> off_caller{0};
  pthread_t caller = pthread_self();
  explicit Counts(int n) : hits(static_cast<size_t>(n)) {}
};

void count_task(void* ctx, int task) {
  auto& c = *static_cast<Counts*>(ctx);
  c.hits[static_cast<size_t>(task)].fetch_add(1);
  if (!pthread_equal(pthread_self(), c.caller)) c.off_caller.fetch_add(1);
}

TEST_CASE("thread pool: every task runs once, on several threads, call after call") {
  for (int threads : {1, 2, 4}) {
    INFO("threads ", threads);
    Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::create(threads);
    REQUIRE(pool.ok());
    CHECK((*pool)->num_threads() == threads);
    int off_caller = 0;
    for (int call = 0; call < 300; ++call) {
      const int tasks = 1 + call % 9;
      Counts counts(tasks);
      (*pool)->run(tasks, count_task, &counts);
      for (const auto& h : counts.hits) CHECK(h.load() == 1);
      off_caller += counts.off_caller.load();
    }
    if (threads == 1) CHECK(off_caller == 0);
    // No tasks: nothing runs.
    (*pool)->run(0, count_task, nullptr);
  }
}

// Two tasks that each wait until the other has started can only finish on two threads at once:
// the caller takes one and a worker must take the other (no timing involved).
std::atomic<int> g_started{0};
void meet_task(void*, int) {
  g_started.fetch_add(1);
  while (g_started.load() < 2) sched_yield();
}

TEST_CASE("thread pool: tasks of one call run at the same time on different threads") {
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::create(2);
  REQUIRE(pool.ok());
  for (int call = 0; call < 50; ++call) {
    g_started.store(0);
    (*pool)->run(2, meet_task, nullptr);
    CHECK(g_started.load() == 2);
  }
}

}  // namespace
}  // namespace etkit
