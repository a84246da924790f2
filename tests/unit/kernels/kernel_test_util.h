#pragma once

// Helpers for kernel tests: build tensors from values in logical (row-major) order whatever
// their dim order, read them back in logical order, assemble a kernel's argument list and call
// it by name through the default registry.

#include <doctest/doctest.h>

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <string>
#include <vector>

#include "etkit/core/evalue.h"
#include "etkit/core/host_tensor.h"
#include "etkit/core/kernel.h"

namespace etkit::test {

/// Memory index of logical element `i` (row-major over the sizes) of `t`.
inline int64_t memory_index(const Tensor& t, int64_t i) { return logical_to_memory_index(t, i); }

/// A tensor holding `values` in logical order, laid out in `dim_order` (default contiguous).
inline HostTensor make(ScalarType dtype, std::vector<int32_t> sizes, std::vector<double> values,
                       std::vector<uint8_t> dim_order = {}) {
  HostTensor h(dtype, sizes, dim_order);
  REQUIRE(static_cast<int64_t>(values.size()) == h.tensor().numel());
  for (size_t i = 0; i < values.size(); ++i) {
    write_element_from_double(h.tensor(), memory_index(h.tensor(), static_cast<int64_t>(i)),
                              values[i]);
  }
  return h;
}

/// A zero tensor to receive a result.
inline HostTensor zeros(ScalarType dtype, std::vector<int32_t> sizes,
                        std::vector<uint8_t> dim_order = {}) {
  return HostTensor(dtype, sizes, dim_order);
}

/// The elements of `t` in logical order, as doubles.
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) {
    v[static_cast<size_t>(i)] = read_element_as_double(t, memory_index(t, i));
  }
  return v;
}

inline std::vector<int32_t> sizes(const Tensor& t) {
  return {t.sizes().begin(), t.sizes().end()};
}

/// A DynamicBound tensor with room for `capacity_numel` elements; it starts at `sizes`.
class DynamicTensor {
 public:
  DynamicTensor(ScalarType dtype, std::vector<int32_t> sizes, int64_t capacity_numel)
      : sizes_(std::move(sizes)), dim_order_(sizes_.size()), strides_(sizes_.size()) {
    for (size_t i = 0; i < dim_order_.size(); ++i) dim_order_[i] = static_cast<uint8_t>(i);
    const size_t bytes = static_cast<size_t>(capacity_numel) * element_size(dtype);
    data_.assign((bytes + 7) / 8, 0);
    tensor_ = Tensor(dtype, sizes_, dim_order_, strides_, data_.data(),
                     ShapeDynamism::DynamicBound);
    tensor_.set_capacity_bytes(bytes);
  }
  DynamicTensor(const DynamicTensor&) = delete;
  DynamicTensor& operator=(const DynamicTensor&) = delete;
  Tensor& tensor() { return tensor_; }

 private:
  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int32_t> strides_;
  std::vector<uint64_t> data_;
  Tensor tensor_;
};

/// A kernel's argument list, built in schema order.
class Args {
 public:
  Args& t(Tensor& x) { return push(EValue::from_tensor(&x)); }
  Args& t(HostTensor& x) { return t(x.tensor()); }
  Args& i(int64_t v) { return push(EValue::from_int(v)); }
  Args& d(double v) { return push(EValue::from_double(v)); }
  Args& b(bool v) { return push(EValue::from_bool(v)); }
  Args& none() { return push(EValue()); }
  Args& ints(std::initializer_list<int64_t> items) {
    auto& ptrs = item_ptrs_.emplace_back();
    for (int64_t v : items) ptrs.push_back(&items_.emplace_back(EValue::from_int(v)));
    auto& scratch = scratch_.emplace_back(items.size());
    return push(EValue::from_int_list(BoxedIntList(ptrs.data(), scratch.data(), ptrs.size())));
  }

  /// Calls kernel `name` with these arguments plus the return slot (a copy of the last one,
  /// which is the out tensor for every portable kernel).
  KernelContext run(std::string_view name) {
    std::vector<EValue*> ptrs = pointers();
    if (!ptrs.empty()) ptrs.push_back(ptrs.back());
    return call(name, ptrs);
  }
  /// Calls kernel `name` with exactly these arguments (no return slot added).
  KernelContext run_raw(std::string_view name) {
    std::vector<EValue*> ptrs = pointers();
    return call(name, ptrs);
  }

 private:
  Args& push(EValue v) {
    values_.push_back(v);
    return *this;
  }
  std::vector<EValue*> pointers() {
    std::vector<EValue*> ptrs;
    for (EValue& v : values_) ptrs.push_back(&v);
    return ptrs;
  }
  static KernelContext call(std::string_view name, std::vector<EValue*>& ptrs) {
    KernelFn fn = default_kernel_registry().find(name);
    const bool found = fn != nullptr;
    REQUIRE_MESSAGE(found, std::string(name));
    KernelContext ctx;
    fn(ctx, ptrs);
    return ctx;
  }

  std::deque<EValue> values_;
  std::deque<EValue> items_;
  std::deque<std::vector<EValue*>> item_ptrs_;
  std::deque<std::vector<int64_t>> scratch_;
};

/// Checks that a call succeeded.
inline void check_ok(const KernelContext& ctx) {
  INFO("error: ", std::string(ctx.error().message()));
  CHECK_FALSE(ctx.failed());
}

/// Checks that a call failed with `code` and a message containing `substring`.
inline void check_error(const KernelContext& ctx, ErrorCode code, const std::string& substring) {
  REQUIRE(ctx.failed());
  const std::string message = ctx.error().message();
  INFO("message: ", message);
  CHECK(ctx.error().code() == code);
  CHECK(message.find(substring) != std::string::npos);
}

/// Checks `t`'s dtype, sizes and logical values (floating values approximately).
inline void check_tensor(const Tensor& t, ScalarType dtype, std::vector<int32_t> want_sizes,
                         std::vector<double> want) {
  CHECK(t.dtype() == dtype);
  CHECK(sizes(t) == want_sizes);
  const std::vector<double> got = values(t);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element ", i);
    CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-6));
  }
}

}  // namespace etkit::test
