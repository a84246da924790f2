// Float matmul through the registered aten::mm.out and aten::bmm.out kernels, as a method would
// call them, beside Eigen's GEMM on the same sizes (when Eigen is available) so that the ratio is
// measured in one run on the same machine state. Reports GFLOP/s (2 * n * k * m flops per
// product) as a rate counter.
//
// Compare BM_MatmulF32/<n> with BM_EigenMatmulF32/<n>; both are single-threaded and built with
// the project's flags (no -march), so Eigen uses the baseline instruction set, while etkit's GEMM
// picks AVX-512 or AVX2 + FMA at run time when the CPU has them (gemm.h).
// BM_MatmulF16/<n> is the same product of Half matrices (float32 copies in temp memory, one
// rounding on store: float16_proxy.h), beside BM_MatmulF32/<n>.
//
// BM_MatmulF32VsOpenblas/<n>/<path> times aten::mm.out on one GEMM path (gemm.h: 0 baseline,
// the exact FMA emulation; 1 AVX2+FMA; 2 AVX-512; each skipped when the CPU lacks it) and
// OpenBLAS's cblas_sgemm on one thread
// alternately, one call each per iteration; x_openblas is etkit's rate over OpenBLAS's.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <span>
#include <vector>

#include "bench_pair.h"
#include "etkit/host/default_registries.h"
#include "etkit/runtime/evalue.h"
#include "etkit/host/host_tensor.h"
#include "etkit/kernels/gemm.h"
#include "etkit/runtime/kernel.h"
#include "etkit/runtime/memory.h"

#if defined(ETKIT_BENCH_HAVE_EIGEN)
#include <Eigen/Core>
#endif
#if defined(ETKIT_BENCH_HAVE_OPENBLAS)
#include <cblas.h>
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

#if defined(ETKIT_BENCH_HAVE_OPENBLAS)
void BM_MatmulF32VsOpenblas(benchmark::State& state) {
  namespace gemm = etkit::kernels::gemm;
  const int32_t n = static_cast<int32_t>(state.range(0));
  const gemm::Path path = gemm::kPaths[state.range(1)];
  if (!gemm::path_supported(path)) {
    state.SkipWithError("this CPU lacks the GEMM path");
    return;
  }
  state.SetLabel(gemm::path_name(path));
  const gemm::Path previous = gemm::active_path();
  gemm::force_path(path);
  openblas_set_num_threads(1);
  const std::vector<int32_t> sizes = {n, n};
  etkit::HostTensor a(etkit::ScalarType::Float, sizes);
  etkit::HostTensor b(etkit::ScalarType::Float, sizes);
  etkit::HostTensor out(etkit::ScalarType::Float, sizes);
  std::vector<float> ref(static_cast<size_t>(n) * static_cast<size_t>(n));
  fill(a.tensor(), 1);
  fill(b.tensor(), 2);
  etkit::EValue values[3] = {etkit::EValue::from_tensor(&a.tensor()),
                             etkit::EValue::from_tensor(&b.tensor()),
                             etkit::EValue::from_tensor(&out.tensor())};
  etkit::EValue* args[4] = {&values[0], &values[1], &values[2], &values[2]};
  const etkit::KernelFn fn = etkit::default_kernel_registry().find("aten::mm.out");
  const float* ad = a.tensor().data_as<const float>();
  const float* bd = b.tensor().data_as<const float>();
  etkit::bench::run_pair(
      state, 2.0 * n * n * n, "openblas",
      [&] {
        etkit::KernelContext ctx;
        fn(ctx, std::span<etkit::EValue*>(args));
        if (ctx.failed()) state.SkipWithError(ctx.error().message());
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
        return !ctx.failed();
      },
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, ad, n, bd, n, 0.0f,
                    ref.data(), n);
        benchmark::DoNotOptimize(ref.data());
        benchmark::ClobberMemory();
      });
  gemm::force_path(previous);
}
BENCHMARK(BM_MatmulF32VsOpenblas)
    ->ArgsProduct({{256, 512, 1024}, {0, 1, 2}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
#else
void BM_MatmulF32VsOpenblas(benchmark::State& state) {
  state.SkipWithError("OpenBLAS not found at build time (libopenblas-dev): comparison skipped");
}
BENCHMARK(BM_MatmulF32VsOpenblas);
#endif

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
