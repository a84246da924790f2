// Threads 1 vs 2 (trace-run --threads) on the kernels that split, measured side by side in one
// run: matmul 512 x 512 x 512, the 3x3 64 -> 64 convolution on 1 x 64 x 56 x 56 (padding 1),
// and a 1M-float add. For each case the two configurations alternate, --batch calls (default 4)
// of one then of the other, for --rounds rounds (default 20), so that a change in the machine's
// load hits both; the figure is the fastest call of each, and the ratio is one thread's time over
// two threads'. Batches, because a method's kernels come back to back, so the pool's threads are
// awake; strictly alternating calls (--batch 1) make every threaded call wake a sleeping thread
// after a one-thread call, about 0.6 ms on mm 512 here.
//
//   build-bench/bin/etkit_bench_threads [--rounds N] [--batch B] [--threads T]
//
// The pool is created once, before timing, as trace-run does; the kernels are called through
// the registry with a KernelContext that carries it, as a method calls them. Prints `uptime`'s
// load average first: on a shared machine two idle cores are not a given.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench_call.h"
#include "etkit/host/thread_pool.h"

namespace {

using etkit::bench::Call;
using etkit::bench::fill;
using etkit::bench::HostTensor;
using etkit::bench::ScalarType;

double seconds_of_call(etkit::KernelFn fn, std::vector<etkit::EValue*>& args,
                       etkit::ParallelRunner* parallel) {
  const auto start = std::chrono::steady_clock::now();
  etkit::KernelContext ctx(nullptr, parallel);
  fn(ctx, std::span<etkit::EValue*>(args));
  const auto end = std::chrono::steady_clock::now();
  if (ctx.failed()) {
    std::fprintf(stderr, "kernel failed: %s\n", ctx.error().message());
    std::exit(1);
  }
  return std::chrono::duration<double>(end - start).count();
}

struct Case {
  std::string name;
  const char* op;
  Call call;
  std::vector<std::unique_ptr<HostTensor>> tensors;
  HostTensor* add(std::vector<int32_t> sizes, uint32_t seed) {
    tensors.push_back(std::make_unique<HostTensor>(ScalarType::Float, sizes));
    fill(tensors.back()->tensor(), seed);
    return tensors.back().get();
  }
};

}  // namespace

int main(int argc, char** argv) {
  int rounds = 20;
  int batch = 4;
  int threads = 2;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--batch") == 0 && i + 1 < argc) {
      batch = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: etkit_bench_threads [--rounds N] [--batch B] [--threads T]\n");
      return 2;
    }
  }
  if (rounds < 1) rounds = 1;
  if (batch < 1) batch = 1;
  auto pool = etkit::ThreadPool::create(threads);
  if (!pool.ok()) {
    std::fprintf(stderr, "%s\n", pool.error().message());
    return 1;
  }
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    char line[128] = {};
    if (std::fgets(line, sizeof line, f) != nullptr) std::printf("load average: %s", line);
    std::fclose(f);
  }

  std::vector<std::unique_ptr<Case>> cases;
  {
    auto c = std::make_unique<Case>();
    c->name = "mm 512x512x512";
    c->op = "aten::mm.out";
    c->call.tensor(*c->add({512, 512}, 1));
    c->call.tensor(*c->add({512, 512}, 2));
    c->call.tensor(*c->add({512, 512}, 3));
    cases.push_back(std::move(c));
  }
  {
    auto c = std::make_unique<Case>();
    c->name = "conv 3x3 64->64 56x56";
    c->op = "aten::convolution.out";
    c->call.tensor(*c->add({1, 64, 56, 56}, 4));
    c->call.tensor(*c->add({64, 64, 3, 3}, 5));
    c->call.tensor(*c->add({64}, 6));
    c->call.ints({1, 1});
    c->call.ints({1, 1});
    c->call.ints({1, 1});
    c->call.boolean(false);
    c->call.ints({0, 0});
    c->call.integer(1);
    c->call.tensor(*c->add({1, 64, 56, 56}, 7));
    cases.push_back(std::move(c));
  }
  {
    auto c = std::make_unique<Case>();
    c->name = "add 1M floats";
    c->op = "aten::add.out";
    c->call.tensor(*c->add({1 << 20}, 8));
    c->call.tensor(*c->add({1 << 20}, 9));
    c->call.integer(1);
    c->call.tensor(*c->add({1 << 20}, 10));
    cases.push_back(std::move(c));
  }

  std::printf("%-24s %12s %12s %8s   (fastest of %d rounds of %d calls each, interleaved)\n",
              "case", "1 thread ms", "threads ms", "ratio", rounds, batch);
  for (auto& c : cases) {
    const etkit::KernelFn fn = etkit::default_kernel_registry().find(c->op);
    std::vector<etkit::EValue*> args = c->call.args(1);
    // One warm-up call each: pages of the out tensor, the pool's threads awake.
    seconds_of_call(fn, args, nullptr);
    seconds_of_call(fn, args, pool->get());
    double best1 = 1e30;
    double best2 = 1e30;
    for (int r = 0; r < rounds; ++r) {
      for (int b = 0; b < batch; ++b) best1 = std::min(best1, seconds_of_call(fn, args, nullptr));
      for (int b = 0; b < batch; ++b) {
        best2 = std::min(best2, seconds_of_call(fn, args, pool->get()));
      }
    }
    std::printf("%-24s %12.3f %12.3f %7.2fx\n", c->name.c_str(), best1 * 1e3, best2 * 1e3,
                best1 / best2);
  }
  std::printf("threads: %d (hardware threads: %u)\n", threads,
              std::thread::hardware_concurrency());
  return 0;
}
