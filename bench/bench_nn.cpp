// Neural-network kernels through the registry, as a method would call them: a 3x3 64->64
// convolution on 56x56 and a 3x3 depthwise one on 64x56x56 (GFLOP/s, 2 flops per multiply-add),
// softmax and layer norm over 4096-wide rows (GB/s: bytes read plus bytes written once).
// Compare with BM_MatmulF32 of bench_matmul.cpp in the same run for the GEMM's share.

#include <cstdint>
#include <vector>

#include "bench_call.h"

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
