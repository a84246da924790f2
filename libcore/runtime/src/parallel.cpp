#include "etkit/runtime/parallel.h"

namespace etkit {

int parallel_chunks(int threads, int64_t n, int64_t grain) {
  if (n <= 0) return 0;
  if (grain < 1) grain = 1;
  if (threads <= 1 || n < 2 * grain) return 1;
  const int64_t by_grain = n / grain;
  return static_cast<int>(by_grain < threads ? by_grain : threads);
}

namespace {

struct Split {
  ParallelFn fn;
  void* ctx;
  int64_t n;
  int chunks;
};

// Chunk t covers [t * n / chunks, (t + 1) * n / chunks): sizes differ by at most one item.
void run_chunk(void* ctx, int task) {
  const Split& s = *static_cast<const Split*>(ctx);
  const int64_t begin = s.n * task / s.chunks;
  const int64_t end = s.n * (task + 1) / s.chunks;
  if (begin < end) s.fn(s.ctx, begin, end);
}

}  // namespace

void parallel_for(ParallelRunner* runner, int64_t n, int64_t grain, ParallelFn fn, void* ctx) {
  if (n <= 0) return;
  const int chunks = runner == nullptr ? 1 : parallel_chunks(runner->num_threads(), n, grain);
  if (chunks <= 1) {
    fn(ctx, 0, n);
    return;
  }
  Split split{fn, ctx, n, chunks};
  runner->run(chunks, run_chunk, &split);
}

}  // namespace etkit
