// Float matmul through the registered aten::mm.out and aten::bmm.out kernels, as a method would
// call them, beside Eigen's GEMM on the same sizes (when Eigen is available) so that the ratio is
// measured in one run on the same machine state. Reports GFLOP/s (2 * n * k * m flops per
// product) as a rate counter.
//
// Compare BM_MatmulF32/<n> with BM_EigenMatmulF32/<n>; both are single-threaded and built with
// the project's flags (no -march), so Eigen uses the same baseline instruction set as etkit.
// BM_MatmulF16/<n> is the same product of Half matrices (float32 copies in temp memory, one
// rounding on store: float16_proxy.h), beside BM_MatmulF32/<n>.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <span>
#include <vector>

#include "etkit/host/default_registries.h"
#include "etkit/runtime/evalue.h"
#include "etkit/host/host_tensor.h"
#include "etkit/runtime/kernel.h"
#include "etkit/runtime/memory.h"

#if defined(ETKIT_BENCH_HAVE_EIGEN)
#include <Eigen/Core>
#endif

namespace {

void fill(etkit::Tensor& t, uint32_t seed) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    etkit::write_element_from_double(t, i, static_cast<double>(seed >> 8) / 16777216.0 - 0.5);
  }
}

void set_gflops(benchmark::State& state, double flops_per_iteration) {
  // Printed as "GFLOP=<n>/s".
  state.counters["GFLOP"] = benchmark::Counter(
      flops_per_iteration * 1e-9 * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

// Runs kernel `name` on `args` (return slot included) until the state stops.
void run_kernel(benchmark::State& state, const char* name, std::span<etkit::EValue*> args,
                const etkit::HostTensor& out) {
  const etkit::KernelFn fn = etkit::default_kernel_registry().find(name);
  if (fn == nullptr) {
    state.SkipWithError("kernel is not registered");
    return;
  }
  // Temp memory as a method gives its kernels (16-bit tensors through float16_proxy.h use it).
  std::vector<uint8_t> temp_buffer(size_t{32} << 20);
  etkit::MemoryAllocator temp({temp_buffer.data(), temp_buffer.size()});
  for (auto _ : state) {
    temp.reset();
    etkit::KernelContext ctx(&temp);
    fn(ctx, args);
    if (ctx.failed()) {
      state.SkipWithError(ctx.error().message());
      return;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}

void matmul(benchmark::State& state, etkit::ScalarType dtype) {
  const int32_t n = static_cast<int32_t>(state.range(0));
  const std::vector<int32_t> sizes = {n, n};
  etkit::HostTensor a(dtype, sizes);
  etkit::HostTensor b(dtype, sizes);
  etkit::HostTensor out(dtype, sizes);
  fill(a.tensor(), 1);
  fill(b.tensor(), 2);
  etkit::EValue values[3] = {etkit::EValue::from_tensor(&a.tensor()),
                             etkit::EValue::from_tensor(&b.tensor()),
                             etkit::EValue::from_tensor(&out.tensor())};
  etkit::EValue* args[4] = {&values[0], &values[1], &values[2], &values[2]};
  run_kernel(state, "aten::mm.out", args, out);
  set_gflops(state, 2.0 * n * n * n);
}

void BM_MatmulF32(benchmark::State& state) { matmul(state, etkit::ScalarType::Float); }
void BM_MatmulF16(benchmark::State& state) { matmul(state, etkit::ScalarType::Half); }

// A batch of 8 products of n x n matrices through aten::bmm.out.
void BM_BmmF32(benchmark::State& state) {
  const int32_t n = static_cast<int32_t>(state.range(0));
  const int32_t batch = 8;
  const std::vector<int32_t> sizes = {batch, n, n};
  etkit::HostTensor a(etkit::ScalarType::Float, sizes);
  etkit::HostTensor b(etkit::ScalarType::Float, sizes);
  etkit::HostTensor out(etkit::ScalarType::Float, sizes);
  fill(a.tensor(), 1);
  fill(b.tensor(), 2);
  etkit::EValue values[3] = {etkit::EValue::from_tensor(&a.tensor()),
                             etkit::EValue::from_tensor(&b.tensor()),
                             etkit::EValue::from_tensor(&out.tensor())};
  etkit::EValue* args[4] = {&values[0], &values[1], &values[2], &values[2]};
  run_kernel(state, "aten::bmm.out", args, out);
  set_gflops(state, 2.0 * batch * n * n * n);
}

BENCHMARK(BM_MatmulF32)->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MatmulF16)->Arg(256)->Arg(512)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BmmF32)->Arg(64)->Arg(128)->Unit(benchmark::kMicrosecond);

#if defined(ETKIT_BENCH_HAVE_EIGEN)
void BM_EigenMatmulF32(benchmark::State& state) {
  const Eigen::Index n = state.range(0);
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Matrix a(n, n);
  Matrix b(n, n);
  Matrix c(n, n);
  uint32_t seed = 1;
  for (Eigen::Index i = 0; i < n * n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    a.data()[i] = static_cast<float>(seed >> 8) / 16777216.0f - 0.5f;
    b.data()[i] = static_cast<float>(seed >> 9) / 8388608.0f - 0.5f;
  }
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  set_gflops(state, 2.0 * static_cast<double>(n * n * n));
}
BENCHMARK(BM_EigenMatmulF32)->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMicrosecond);
#endif

}  // namespace
