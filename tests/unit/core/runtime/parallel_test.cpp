// parallel_for: how [0, n) is cut into chunks, inline without a runner, and that every item is
// covered exactly once whatever order a runner runs the tasks in.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "etkit/runtime/parallel.h"

namespace etkit {
namespace {

// Runs the tasks on the caller, last first, and records how many it was given.
class ReverseRunner final : public ParallelRunner {
 public:
  explicit ReverseRunner(int threads) : threads_(threads) {}
  int num_threads() const override { return threads_; }
  void run(int tasks, ParallelTaskFn fn, void* ctx) override {
    last_tasks = tasks;
    for (int t = tasks - 1; t >= 0; --t) fn(ctx, t);
  }
  int last_tasks = 0;

 private:
  int threads_;
};

std::vector<std::pair<int64_t, int64_t>> chunks_of(ParallelRunner* runner, int64_t n,
                                                   int64_t grain) {
  std::vector<std::pair<int64_t, int64_t>> chunks;
  parallel_for(runner, n, grain, [&](int64_t b, int64_t e) { chunks.emplace_back(b, e); });
  return chunks;
}

TEST_CASE("parallel_for: chunk counts follow threads and grain") {
  CHECK(parallel_chunks(1, 1000, 1) == 1);
  CHECK(parallel_chunks(4, 0, 1) == 0);
  CHECK(parallel_chunks(4, 1000, 1) == 4);
  CHECK(parallel_chunks(4, 1000, 300) == 3);
  CHECK(parallel_chunks(4, 1000, 500) == 2);
  CHECK(parallel_chunks(4, 999, 500) == 1);  // fewer than two grains: not worth a split
  CHECK(parallel_chunks(2, 10, 0) == 2);     // a grain below one counts as one
}

TEST_CASE("parallel_for: inline without a runner, with one thread, or below two grains") {
  using Chunks = std::vector<std::pair<int64_t, int64_t>>;
  CHECK(chunks_of(nullptr, 1000, 1) == Chunks{{0, 1000}});
  ReverseRunner one(1);
  CHECK(chunks_of(&one, 1000, 1) == Chunks{{0, 1000}});
  ReverseRunner four(4);
  CHECK(chunks_of(&four, 99, 50) == Chunks{{0, 99}});
  CHECK(four.last_tasks == 0);
  CHECK(chunks_of(&four, 0, 1).empty());
  CHECK(chunks_of(&four, -5, 1).empty());
}

TEST_CASE("parallel_for: contiguous chunks that differ by at most one item cover every item once") {
  for (int threads : {2, 3, 4, 7}) {
    for (int64_t n : {2, 3, 10, 49, 1000, 1001}) {
      ReverseRunner runner(threads);
      std::vector<int> seen(static_cast<size_t>(n), 0);
      auto chunks = chunks_of(&runner, n, 1);
      INFO("threads ", threads, " n ", n);
      const int64_t want_chunks = n < threads ? n : threads;
      CHECK(static_cast<int64_t>(chunks.size()) == want_chunks);
      int64_t smallest = n;
      int64_t largest = 0;
      for (auto [b, e] : chunks) {
        for (int64_t i = b; i < e; ++i) ++seen[static_cast<size_t>(i)];
        smallest = std::min(smallest, e - b);
        largest = std::max(largest, e - b);
      }
      CHECK(largest - smallest <= 1);
      for (int s : seen) CHECK(s == 1);
    }
  }
}

}  // namespace
}  // namespace etkit
