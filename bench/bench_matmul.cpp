// Float matmul through the registered aten::mm.out kernel, as a method would call it.
// Reports GFLOP/s (2 * n * k * m flops per product) as a rate counter.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <span>
#include <vector>

#include "etkit/core/evalue.h"
#include "etkit/core/host_tensor.h"
#include "etkit/core/kernel.h"

namespace {

void fill(etkit::Tensor& t, uint32_t seed) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    etkit::write_element_from_double(t, i, static_cast<double>(seed >> 8) / 16777216.0 - 0.5);
  }
}

void BM_MatmulF32(benchmark::State& state) {
  const int32_t n = static_cast<int32_t>(state.range(0));
  const std::vector<int32_t> sizes = {n, n};
  etkit::HostTensor a(etkit::ScalarType::Float, sizes);
  etkit::HostTensor b(etkit::ScalarType::Float, sizes);
  etkit::HostTensor out(etkit::ScalarType::Float, sizes);
  fill(a.tensor(), 1);
  fill(b.tensor(), 2);

  etkit::EValue values[3] = {etkit::EValue::from_tensor(&a.tensor()),
                             etkit::EValue::from_tensor(&b.tensor()),
                             etkit::EValue::from_tensor(&out.tensor())};
  etkit::EValue* args[4] = {&values[0], &values[1], &values[2], &values[2]};
  const etkit::KernelFn mm = etkit::default_kernel_registry().find("aten::mm.out");
  if (mm == nullptr) {
    state.SkipWithError("aten::mm.out is not registered");
    return;
  }
  for (auto _ : state) {
    etkit::KernelContext ctx;
    mm(ctx, std::span<etkit::EValue*>(args));
    if (ctx.failed()) {
      state.SkipWithError(ctx.error().message());
      return;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  const double flops = 2.0 * n * n * n;
  // Printed as "GFLOP=<n>/s".
  state.counters["GFLOP"] = benchmark::Counter(
      flops * 1e-9 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_MatmulF32)->Arg(256)->Unit(benchmark::kMicrosecond);

}  // namespace
