#pragma once

// Helpers for the neural-network kernel tests: calling a kernel with several outs (the return
// slot is a TensorList of them) and deterministic test values.

#include <doctest/doctest.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {

/// Arguments in schema order; `run_outs(name, k)` appends a TensorList of the last k values (the
/// outs) as the return slot.
class OutsArgs {
 public:
  OutsArgs& t(HostTensor& x) { return push(EValue::from_tensor(&x.tensor())); }
  OutsArgs& i(int64_t v) { return push(EValue::from_int(v)); }
  OutsArgs& d(double v) { return push(EValue::from_double(v)); }
  OutsArgs& b(bool v) { return push(EValue::from_bool(v)); }
  OutsArgs& none() { return push(EValue()); }
  OutsArgs& ints(std::vector<int64_t> items) {
    auto& ptrs = item_ptrs_.emplace_back();
    for (int64_t v : items) ptrs.push_back(&items_.emplace_back(EValue::from_int(v)));
    auto& scratch = scratch_.emplace_back(items.size());
    return push(EValue::from_int_list(BoxedIntList(ptrs.data(), scratch.data(), ptrs.size())));
  }

  KernelContext run_outs(std::string_view name, size_t num_outs) {
    std::vector<EValue*> ptrs;
    for (EValue& v : values_) ptrs.push_back(&v);
    list_items_.clear();
    for (size_t k = ptrs.size() - num_outs; k < ptrs.size(); ++k) list_items_.push_back(ptrs[k]);
    ret_ = EValue::from_tensor_list(TensorListRef(list_items_.data(), list_items_.size()));
    ptrs.push_back(&ret_);
    KernelFn fn = default_kernel_registry().find(name);
    const bool found = fn != nullptr;
    REQUIRE_MESSAGE(found, std::string(name));
    KernelContext ctx;
    fn(ctx, ptrs);
    return ctx;
  }

 private:
  OutsArgs& push(EValue v) {
    values_.push_back(v);
    return *this;
  }
  std::deque<EValue> values_;
  std::deque<EValue> items_;
  std::deque<std::vector<EValue*>> item_ptrs_;
  std::deque<std::vector<int64_t>> scratch_;
  std::vector<EValue*> list_items_;
  EValue ret_;
};

/// n pseudo-random values in [-1, 1) (deterministic).
inline std::vector<double> pseudo_random(size_t n, uint32_t seed) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = static_cast<double>(seed >> 8) / 8388608.0 - 1.0;
  }
  return v;
}

/// Checks every element of `got` against `want` within `tol` (absolute + relative).
inline void check_close(const std::vector<double>& got, const std::vector<double>& want,
                        double tol) {
  REQUIRE(got.size() == want.size());
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double diff = got[i] > want[i] ? got[i] - want[i] : want[i] - got[i];
    const double mag = want[i] < 0 ? -want[i] : want[i];
    if (!(diff <= tol * (1 + mag))) {
      if (bad++ < 5) MESSAGE("element " << i << ": got " << got[i] << ", want " << want[i]);
    }
  }
  CHECK(bad == 0);
}

/// True if `name` is in the default registry.
inline bool registered(std::string_view name) {
  return default_kernel_registry().find(name) != nullptr;
}

}  // namespace etkit::test
