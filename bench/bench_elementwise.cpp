// Elementwise kernels against memory bandwidth: memcpy of 1M floats beside add.out, relu.out,
// sigmoid.out, exp.out, silu.out and gelu.out ('tanh') on 1M contiguous floats, called through
// the registry as a method would call them. The families added for issue #17 sit beside the
// closest older kernel of their family (the 2x budget): sin/cos/abs/floor beside tanh and neg,
// maximum beside add, fmod and remainder (tensor and scalar divisor) beside add and div (a
// division per element), clamp beside hardtanh, ne/ge/logical_and (bool out) beside eq.
// Each reports bytes/s counting the bytes read plus the bytes written, so the rates compare
// directly: the target is an elementwise kernel within 2x of memcpy's rate.
//
// Half and BFloat16 (F16, BF16 suffixes) run the same operators on 16-bit tensors: computed in
// float32 and rounded on store (elementwise.h), or, for softmax, through float32 copies in temp
// memory (float16_proxy.h). Their budget is 2x the float32 kernel's time; they move half the
// bytes, so compare times, not rates.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "etkit/host/default_registries.h"
#include "etkit/runtime/evalue.h"
#include "etkit/host/host_tensor.h"
#include "etkit/runtime/half.h"
#include "etkit/runtime/kernel.h"
#include "etkit/runtime/memory.h"

namespace {

constexpr int32_t kNumel = 1 << 20;

void fill(etkit::Tensor& t, uint32_t seed) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    const float v = static_cast<float>(seed >> 8) / 16777216.0f * 8.0f - 4.0f;
    switch (t.dtype()) {
      case etkit::ScalarType::Half: t.data_as<uint16_t>()[i] = etkit::float_to_half_bits(v); break;
      case etkit::ScalarType::BFloat16:
        t.data_as<uint16_t>()[i] = etkit::float_to_bfloat16_bits(v);
        break;
      default: t.data_as<float>()[i] = v; break;
    }
  }
}

void set_bytes(benchmark::State& state, int tensors, size_t element_size = sizeof(float)) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * tensors * kNumel *
                          static_cast<int64_t>(element_size));
}

void BM_MemcpyF32(benchmark::State& state) {
  std::vector<float> src(kNumel, 1.0f);
  std::vector<float> dst(kNumel);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kNumel * sizeof(float));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  set_bytes(state, 2);
}

// Runs kernel `name` over `inputs` (each 1M floats) plus `extra` scalar arguments into a 1M
// float out; `tensors` is the number of 4 MB arrays each call reads and writes.
void run_kernel(benchmark::State& state, const char* name, int num_inputs,
                std::vector<etkit::EValue> extra,
                etkit::ScalarType out_dtype = etkit::ScalarType::Float,
                etkit::ScalarType in_dtype = etkit::ScalarType::Float) {
  const std::vector<int32_t> sizes = {kNumel};
  std::vector<etkit::HostTensor> in;
  for (int k = 0; k < num_inputs; ++k) {
    in.emplace_back(in_dtype, sizes);
    fill(in.back().tensor(), static_cast<uint32_t>(k + 1));
  }
  etkit::HostTensor out(out_dtype, sizes);
  std::vector<etkit::EValue> values;
  for (auto& t : in) values.push_back(etkit::EValue::from_tensor(&t.tensor()));
  for (const auto& v : extra) values.push_back(v);
  values.push_back(etkit::EValue::from_tensor(&out.tensor()));
  std::vector<etkit::EValue*> args;
  for (auto& v : values) args.push_back(&v);
  args.push_back(&values.back());
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
    fn(ctx, std::span<etkit::EValue*>(args));
    if (ctx.failed()) {
      state.SkipWithError(ctx.error().message());
      return;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_bytes(state, num_inputs + 1, etkit::element_size(in_dtype));
}

void BM_ElementwiseAddF32(benchmark::State& state) {
  run_kernel(state, "aten::add.out", 2, {etkit::EValue::from_int(1)});
}
void BM_ElementwiseReluF32(benchmark::State& state) {
  run_kernel(state, "aten::relu.out", 1, {});
}
void BM_ElementwiseSigmoidF32(benchmark::State& state) {
  run_kernel(state, "aten::sigmoid.out", 1, {});
}
void BM_ElementwiseExpF32(benchmark::State& state) {
  run_kernel(state, "aten::exp.out", 1, {});
}
void BM_ElementwiseSiluF32(benchmark::State& state) {
  run_kernel(state, "aten::silu.out", 1, {});
}
void BM_ElementwiseGeluTanhF32(benchmark::State& state) {
  run_kernel(state, "aten::gelu.out", 1, {etkit::EValue::from_string("tanh")});
}

void BM_ElementwiseTanhF32(benchmark::State& state) { run_kernel(state, "aten::tanh.out", 1, {}); }
void BM_ElementwiseNegF32(benchmark::State& state) { run_kernel(state, "aten::neg.out", 1, {}); }
void BM_ElementwiseSinF32(benchmark::State& state) { run_kernel(state, "aten::sin.out", 1, {}); }
void BM_ElementwiseCosF32(benchmark::State& state) { run_kernel(state, "aten::cos.out", 1, {}); }
void BM_ElementwiseAbsF32(benchmark::State& state) { run_kernel(state, "aten::abs.out", 1, {}); }
void BM_ElementwiseFloorF32(benchmark::State& state) {
  run_kernel(state, "aten::floor.out", 1, {});
}
void BM_ElementwiseMaximumF32(benchmark::State& state) {
  run_kernel(state, "aten::maximum.out", 2, {});
}
void BM_ElementwiseDivF32(benchmark::State& state) { run_kernel(state, "aten::div.out", 2, {}); }
void BM_ElementwiseFmodF32(benchmark::State& state) {
  run_kernel(state, "aten::fmod.Tensor_out", 2, {});
}
void BM_ElementwiseRemainderF32(benchmark::State& state) {
  run_kernel(state, "aten::remainder.Tensor_out", 2, {});
}
void BM_ElementwiseFmodScalarF32(benchmark::State& state) {
  run_kernel(state, "aten::fmod.Scalar_out", 1, {etkit::EValue::from_double(0.75)});
}
void BM_ElementwiseHardtanhF32(benchmark::State& state) {
  run_kernel(state, "aten::hardtanh.out", 1,
             {etkit::EValue::from_double(-1.0), etkit::EValue::from_double(1.0)});
}
void BM_ElementwiseClampF32(benchmark::State& state) {
  run_kernel(state, "aten::clamp.out", 1,
             {etkit::EValue::from_double(-1.0), etkit::EValue::from_double(1.0)});
}
void BM_ElementwiseEqBoolF32(benchmark::State& state) {
  run_kernel(state, "aten::eq.Tensor_out", 2, {}, etkit::ScalarType::Bool);
}
void BM_ElementwiseNeBoolF32(benchmark::State& state) {
  run_kernel(state, "aten::ne.Tensor_out", 2, {}, etkit::ScalarType::Bool);
}
void BM_ElementwiseGeBoolF32(benchmark::State& state) {
  run_kernel(state, "aten::ge.Tensor_out", 2, {}, etkit::ScalarType::Bool);
}
void BM_ElementwiseLogicalAndBoolF32(benchmark::State& state) {
  run_kernel(state, "aten::logical_and.out", 2, {}, etkit::ScalarType::Bool);
}

constexpr auto kF16 = etkit::ScalarType::Half;
constexpr auto kBF16 = etkit::ScalarType::BFloat16;
void BM_ElementwiseAddF16(benchmark::State& state) {
  run_kernel(state, "aten::add.out", 2, {etkit::EValue::from_int(1)}, kF16, kF16);
}
void BM_ElementwiseAddBF16(benchmark::State& state) {
  run_kernel(state, "aten::add.out", 2, {etkit::EValue::from_int(1)}, kBF16, kBF16);
}
void BM_ElementwiseFmodF16(benchmark::State& state) {
  run_kernel(state, "aten::fmod.Tensor_out", 2, {}, kF16, kF16);
}
void BM_ElementwiseReluF16(benchmark::State& state) {
  run_kernel(state, "aten::relu.out", 1, {}, kF16, kF16);
}
void BM_ElementwiseSigmoidF16(benchmark::State& state) {
  run_kernel(state, "aten::sigmoid.out", 1, {}, kF16, kF16);
}
void BM_ElementwiseExpBF16(benchmark::State& state) {
  run_kernel(state, "aten::exp.out", 1, {}, kBF16, kBF16);
}
void BM_ElementwiseClampF16(benchmark::State& state) {
  run_kernel(state, "aten::clamp.out", 1,
             {etkit::EValue::from_double(-1.0), etkit::EValue::from_double(1.0)}, kF16, kF16);
}
void BM_ElementwiseEqBoolF16(benchmark::State& state) {
  run_kernel(state, "aten::eq.Tensor_out", 2, {}, etkit::ScalarType::Bool, kF16);
}
// softmax over one row of 1M: the float32 kernel beside the same through float16_proxy.h.
void BM_SoftmaxF32(benchmark::State& state) {
  run_kernel(state, "aten::_softmax.out", 1,
             {etkit::EValue::from_int(0), etkit::EValue::from_bool(false)});
}
void BM_SoftmaxF16(benchmark::State& state) {
  run_kernel(state, "aten::_softmax.out", 1,
             {etkit::EValue::from_int(0), etkit::EValue::from_bool(false)}, kF16, kF16);
}

BENCHMARK(BM_MemcpyF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseAddF16)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseFmodF16)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseAddBF16)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseReluF16)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseSigmoidF16)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseExpBF16)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseClampF16)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseEqBoolF16)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SoftmaxF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SoftmaxF16)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseAddF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseReluF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseSigmoidF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseExpF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseSiluF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseGeluTanhF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseTanhF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseSinF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseCosF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseNegF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseAbsF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseFloorF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseMaximumF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseDivF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseFmodF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseRemainderF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseFmodScalarF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseHardtanhF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseClampF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseEqBoolF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseNeBoolF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseGeBoolF32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ElementwiseLogicalAndBoolF32)->Unit(benchmark::kMicrosecond);

}  // namespace
