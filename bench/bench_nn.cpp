// Neural-network kernels through the registry, as a method would call them: a 3x3 64->64
// convolution on 56x56 and a 3x3 depthwise one on 64x56x56 (GFLOP/s, 2 flops per multiply-add),
// softmax and layer norm over 4096-wide rows (GB/s: bytes read plus bytes written once).
// Compare with BM_MatmulF32 of bench_matmul.cpp in the same run for the GEMM's share.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "etkit/host/default_registries.h"
#include "etkit/runtime/evalue.h"
#include "etkit/host/host_tensor.h"
#include "etkit/runtime/kernel.h"

namespace {

using etkit::EValue;
using etkit::HostTensor;
using etkit::ScalarType;

void fill(etkit::Tensor& t, uint32_t seed) {
  float* p = t.data_as<float>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = static_cast<float>(seed >> 8) / 16777216.0f - 0.5f;
  }
}

// Boxed int lists and the argument array of one call.
class Call {
 public:
  void tensor(HostTensor& t) { values_.push_back(EValue::from_tensor(&t.tensor())); }
  void integer(int64_t v) { values_.push_back(EValue::from_int(v)); }
  void boolean(bool v) { values_.push_back(EValue::from_bool(v)); }
  void real(double v) { values_.push_back(EValue::from_double(v)); }
  void none() { values_.push_back(EValue()); }
  void ints(std::vector<int64_t> items) {
    auto& ptrs = ptrs_.emplace_back();
    for (int64_t v : items) ptrs.push_back(&items_.emplace_back(EValue::from_int(v)));
    auto& scratch = scratch_.emplace_back(items.size());
    values_.push_back(EValue::from_int_list(
        etkit::BoxedIntList(ptrs.data(), scratch.data(), ptrs.size())));
  }
  // The return slot: the last value, or a TensorList of the last `outs` values.
  std::vector<EValue*> args(size_t outs) {
    std::vector<EValue*> a;
    for (EValue& v : values_) a.push_back(&v);
    if (outs == 1) {
      a.push_back(a.back());
    } else {
      list_.assign(a.end() - static_cast<std::ptrdiff_t>(outs), a.end());
      ret_ = EValue::from_tensor_list(etkit::TensorListRef(list_.data(), list_.size()));
      a.push_back(&ret_);
    }
    return a;
  }

 private:
  std::deque<EValue> values_;
  std::deque<EValue> items_;
  std::deque<std::vector<EValue*>> ptrs_;
  std::deque<std::vector<int64_t>> scratch_;
  std::vector<EValue*> list_;
  EValue ret_;
};

void run(benchmark::State& state, const char* name, std::vector<EValue*> args,
         const HostTensor& out) {
  const etkit::KernelFn fn = etkit::default_kernel_registry().find(name);
  if (fn == nullptr) {
    state.SkipWithError("kernel is not registered");
    return;
  }
  for (auto _ : state) {
    etkit::KernelContext ctx;
    fn(ctx, std::span<EValue*>(args));
    if (ctx.failed()) {
      state.SkipWithError(ctx.error().message());
      return;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}

void rate(benchmark::State& state, const char* counter, double per_iteration) {
  state.counters[counter] = benchmark::Counter(
      per_iteration * 1e-9 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

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
