// Neural-network kernels through the registry, as a method would call them: a 3x3 64->64
// convolution on 56x56 and a 3x3 depthwise one on 64x56x56 (GFLOP/s, 2 flops per multiply-add),
// softmax and layer norm over 4096-wide rows (GB/s: bytes read plus bytes written once).
// BM_Conv3x3F32VsMatmul times the 64->64 convolution and aten::mm.out of the same GEMM shape
// (64 x 576 @ 576 x 3136) alternately: x_matmul is the convolution's GFLOP/s over the GEMM's.

#include <cstdint>
#include <vector>

#include "bench_call.h"
#include "bench_pair.h"

namespace {

using etkit::bench::Call;
using etkit::bench::EValue;
using etkit::bench::HostTensor;
using etkit::bench::ScalarType;
using etkit::bench::fill;
using etkit::bench::rate;
using etkit::bench::run;

// 3x3 convolution, padding 1, on 1 x C x 56 x 56; groups = 1 (range 0 = 0) or C (depthwise).
void BM_Conv3x3F32(benchmark::State& state) {
  const bool depthwise = state.range(0) != 0;
  const int32_t c = 64, hw = 56;
  const int32_t cin_g = depthwise ? 1 : c;
  HostTensor in(ScalarType::Float, std::vector<int32_t>{1, c, hw, hw});
  HostTensor w(ScalarType::Float, std::vector<int32_t>{c, cin_g, 3, 3});
  HostTensor bias(ScalarType::Float, std::vector<int32_t>{c});
  HostTensor out(ScalarType::Float, std::vector<int32_t>{1, c, hw, hw});
  fill(in.tensor(), 1);
  fill(w.tensor(), 2);
  fill(bias.tensor(), 3);
  Call call;
  call.tensor(in);
  call.tensor(w);
  call.tensor(bias);
  call.ints({1, 1});
  call.ints({1, 1});
  call.ints({1, 1});
  call.boolean(false);
  call.ints({0, 0});
  call.integer(depthwise ? c : 1);
  call.tensor(out);
  run(state, "aten::convolution.out", call.args(1), out);
  rate(state, "GFLOP", 2.0 * c * cin_g * 9.0 * hw * hw);
}
BENCHMARK(BM_Conv3x3F32)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// The dense 3x3 64->64 convolution beside the matmul its implicit GEMM computes.
void BM_Conv3x3F32VsMatmul(benchmark::State& state) {
  const int32_t c = 64, hw = 56, k = c * 9;
  HostTensor in(ScalarType::Float, std::vector<int32_t>{1, c, hw, hw});
  HostTensor w(ScalarType::Float, std::vector<int32_t>{c, c, 3, 3});
  HostTensor out(ScalarType::Float, std::vector<int32_t>{1, c, hw, hw});
  HostTensor a(ScalarType::Float, std::vector<int32_t>{c, k});
  HostTensor b(ScalarType::Float, std::vector<int32_t>{k, hw * hw});
  HostTensor prod(ScalarType::Float, std::vector<int32_t>{c, hw * hw});
  fill(in.tensor(), 1);
  fill(w.tensor(), 2);
  fill(a.tensor(), 3);
  fill(b.tensor(), 4);
  Call conv;
  conv.tensor(in);
  conv.tensor(w);
  conv.none();
  conv.ints({1, 1});
  conv.ints({1, 1});
  conv.ints({1, 1});
  conv.boolean(false);
  conv.ints({0, 0});
  conv.integer(1);
  conv.tensor(out);
  Call mm;
  mm.tensor(a);
  mm.tensor(b);
  mm.tensor(prod);
  std::vector<EValue*> conv_args = conv.args(1);
  std::vector<EValue*> mm_args = mm.args(1);
  const etkit::KernelFn conv_fn = etkit::default_kernel_registry().find("aten::convolution.out");
  const etkit::KernelFn mm_fn = etkit::default_kernel_registry().find("aten::mm.out");
  const auto call = [&](etkit::KernelFn fn, std::vector<EValue*>& args, const HostTensor& o) {
    etkit::KernelContext ctx;
    fn(ctx, std::span<EValue*>(args));
    if (ctx.failed()) state.SkipWithError(ctx.error().message());
    benchmark::DoNotOptimize(o.data());
    benchmark::ClobberMemory();
    return !ctx.failed();
  };
  etkit::bench::run_pair(
      state, 2.0 * c * k * hw * hw, "matmul", [&] { return call(conv_fn, conv_args, out); },
      [&] { call(mm_fn, mm_args, prod); });
}
BENCHMARK(BM_Conv3x3F32VsMatmul)->UseManualTime()->Unit(benchmark::kMicrosecond);

// Softmax (range 0 = 0) or log-softmax over 256 rows of 4096 floats.
void BM_SoftmaxF32(benchmark::State& state) {
  const bool log = state.range(0) != 0;
  const std::vector<int32_t> sizes = {256, 4096};
  HostTensor in(ScalarType::Float, sizes);
  HostTensor out(ScalarType::Float, sizes);
  fill(in.tensor(), 4);
  Call call;
  call.tensor(in);
  call.integer(-1);
  call.boolean(false);
  call.tensor(out);
  run(state, log ? "aten::_log_softmax.out" : "aten::_softmax.out", call.args(1), out);
  rate(state, "GB", 2.0 * static_cast<double>(in.nbytes()));
}
BENCHMARK(BM_SoftmaxF32)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// Layer norm over 256 rows of 4096 floats with weight and bias.
void BM_LayerNormF32(benchmark::State& state) {
  const std::vector<int32_t> sizes = {256, 4096};
  const std::vector<int32_t> stat_sizes = {256, 1};
  HostTensor in(ScalarType::Float, sizes);
  HostTensor w(ScalarType::Float, std::vector<int32_t>{4096});
  HostTensor b(ScalarType::Float, std::vector<int32_t>{4096});
  HostTensor out(ScalarType::Float, sizes);
  HostTensor mean(ScalarType::Float, stat_sizes);
  HostTensor rstd(ScalarType::Float, stat_sizes);
  fill(in.tensor(), 5);
  fill(w.tensor(), 6);
  fill(b.tensor(), 7);
  Call call;
  call.tensor(in);
  call.ints({4096});
  call.tensor(w);
  call.tensor(b);
  call.real(1e-5);
  call.tensor(out);
  call.tensor(mean);
  call.tensor(rstd);
  run(state, "aten::native_layer_norm.out", call.args(3), out);
  rate(state, "GB", 2.0 * static_cast<double>(in.nbytes()));
}
BENCHMARK(BM_LayerNormF32)->Unit(benchmark::kMicrosecond);

}  // namespace
