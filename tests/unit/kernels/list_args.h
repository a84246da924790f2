#pragma once

// A kernel argument builder for operators that take tensor lists (cat's Tensor[], index's
// Tensor?[]), which kernel_test_util.h's Args cannot express.

#include <doctest/doctest.h>

#include <deque>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {

class ListArgs {
 public:
  ListArgs& t(Tensor& x) { return push(EValue::from_tensor(&x)); }
  ListArgs& t(HostTensor& x) { return t(x.tensor()); }
  ListArgs& i(int64_t v) { return push(EValue::from_int(v)); }
  ListArgs& d(double v) { return push(EValue::from_double(v)); }
  ListArgs& b(bool v) { return push(EValue::from_bool(v)); }
  ListArgs& none() { return push(EValue()); }
  ListArgs& ints(std::initializer_list<int64_t> items) {
    auto& ptrs = lists_.emplace_back();
    for (int64_t v : items) ptrs.push_back(&items_.emplace_back(EValue::from_int(v)));
    auto& scratch = scratch_.emplace_back(items.size());
    return push(EValue::from_int_list(BoxedIntList(ptrs.data(), scratch.data(), ptrs.size())));
  }
  /// A TensorList of `tensors`.
  ListArgs& tensors(std::vector<HostTensor*> tensors) { return list(tensors, false); }
  /// An OptionalTensorList; a null entry is None.
  ListArgs& optional_tensors(std::vector<HostTensor*> tensors) { return list(tensors, true); }

  /// Calls kernel `name` with these arguments plus the return slot (the last argument again).
  KernelContext run(std::string_view name) {
    std::vector<EValue*> ptrs;
    for (EValue& v : values_) ptrs.push_back(&v);
    ptrs.push_back(ptrs.back());
    KernelFn fn = default_kernel_registry().find(name);
    const bool found = fn != nullptr;
    REQUIRE_MESSAGE(found, std::string(name));
    KernelContext ctx;
    fn(ctx, ptrs);
    return ctx;
  }

 private:
  ListArgs& push(EValue v) {
    values_.push_back(v);
    return *this;
  }
  ListArgs& list(const std::vector<HostTensor*>& tensors, bool optional) {
    auto& ptrs = lists_.emplace_back();
    for (HostTensor* h : tensors) {
      ptrs.push_back(h == nullptr ? &items_.emplace_back()
                                  : &items_.emplace_back(EValue::from_tensor(&h->tensor())));
    }
    const TensorListRef ref(ptrs.data(), ptrs.size());
    return push(optional ? EValue::from_optional_tensor_list(ref) : EValue::from_tensor_list(ref));
  }

  std::deque<EValue> values_;
  std::deque<EValue> items_;
  std::deque<std::vector<EValue*>> lists_;
  std::deque<std::vector<int64_t>> scratch_;
};

}  // namespace etkit::test
