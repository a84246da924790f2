#pragma once

// Calling a kernel through the registry as a method would, for the kernel benchmarks
// (bench_nn.cpp, bench_families.cpp): boxed arguments, the call loop, a rate counter.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "etkit/host/default_registries.h"
#include "etkit/host/host_tensor.h"
#include "etkit/runtime/evalue.h"
#include "etkit/runtime/kernel.h"

namespace etkit::bench {

using etkit::EValue;
using etkit::HostTensor;
using etkit::ScalarType;

// Pseudo-random floats in [-0.5, 0.5).
inline void fill(etkit::Tensor& t, uint32_t seed) {
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
  // A Tensor?[] of `items` (nullptr for None).
  void optional_tensors(std::vector<HostTensor*> items) {
    auto& ptrs = ptrs_.emplace_back();
    for (HostTensor* t : items) {
      ptrs.push_back(&items_.emplace_back(t != nullptr ? EValue::from_tensor(&t->tensor())
                                                       : EValue()));
    }
    values_.push_back(
        EValue::from_optional_tensor_list(etkit::TensorListRef(ptrs.data(), ptrs.size())));
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

inline void run(benchmark::State& state, const char* name, std::vector<EValue*> args,
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

inline void rate(benchmark::State& state, const char* counter, double per_iteration) {
  state.counters[counter] = benchmark::Counter(
      per_iteration * 1e-9 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace etkit::bench
