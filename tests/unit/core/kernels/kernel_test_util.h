#pragma once

// Helpers for kernel tests: short names for dtypes, build tensors from values in logical
// (row-major) order whatever their dim order, read them back in logical order, assemble a
// kernel's argument list (tensors, scalars, lists, strings) and call it by name through the
// default registry, with a tensor or a TensorList of outs as the return slot, and 16 MiB of temp
// memory as a method gives (the Half/BFloat16 path of float16_proxy.h takes its copies there).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/host/default_registries.h"
#include "etkit/runtime/evalue.h"
#include "etkit/host/host_tensor.h"
#include "etkit/runtime/kernel.h"
#include "etkit/runtime/memory.h"

namespace etkit::test {

constexpr auto F = ScalarType::Float;
constexpr auto D = ScalarType::Double;
constexpr auto H = ScalarType::Half;
constexpr auto I = ScalarType::Int;
constexpr auto L = ScalarType::Long;
constexpr auto S16 = ScalarType::Short;
constexpr auto C8 = ScalarType::Char;
constexpr auto U8 = ScalarType::Byte;
constexpr auto B = ScalarType::Bool;

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
  /// A String (copied; the EValue points at the copy).
  Args& s(std::string_view text) {
    return push(EValue::from_string(strings_.emplace_back(text)));
  }
  /// Any value as it is, for kinds the other methods do not build (or wrong ones, in error tests).
  Args& value(const EValue& v) { return push(v); }
  Args& ints(std::initializer_list<int64_t> items) {
    return ints(std::vector<int64_t>(items));
  }
  Args& ints(const std::vector<int64_t>& items) {
    auto& ptrs = item_ptrs_.emplace_back();
    for (int64_t v : items) ptrs.push_back(&items_.emplace_back(EValue::from_int(v)));
    auto& scratch = scratch_.emplace_back(items.size());
    return push(EValue::from_int_list(BoxedIntList(ptrs.data(), scratch.data(), ptrs.size())));
  }
  /// A TensorList (`Tensor[]`) of `tensors`.
  Args& tensors(const std::vector<HostTensor*>& tensors) {
    return push(EValue::from_tensor_list(list(tensors)));
  }
  /// An OptionalTensorList (`Tensor?[]`); a null entry is None.
  Args& optional_tensors(const std::vector<HostTensor*>& tensors) {
    return push(EValue::from_optional_tensor_list(list(tensors)));
  }

  /// Makes the calls below give kernels `runner`'s threads (KernelContext::parallel).
  Args& threads(ParallelRunner* runner) {
    parallel_ = runner;
    return *this;
  }

  /// Calls kernel `name` with these arguments plus the return slot (a copy of the last one,
  /// which is the out tensor for every portable kernel with one out).
  KernelContext run(std::string_view name) {
    std::vector<EValue*> ptrs = pointers();
    if (!ptrs.empty()) ptrs.push_back(ptrs.back());
    return call(name, ptrs, parallel_);
  }
  /// Calls kernel `name` with these arguments plus a TensorList return slot holding the last
  /// `num_outs` arguments (the outs), the convention for operators with several outs.
  KernelContext run_outs(std::string_view name, size_t num_outs) {
    std::vector<EValue*> ptrs = pointers();
    auto& outs = item_ptrs_.emplace_back(ptrs.end() - static_cast<std::ptrdiff_t>(num_outs),
                                         ptrs.end());
    ptrs.push_back(&items_.emplace_back(
        EValue::from_tensor_list(TensorListRef(outs.data(), outs.size()))));
    return call(name, ptrs, parallel_);
  }
  /// Calls kernel `name` with exactly these arguments (no return slot added).
  KernelContext run_raw(std::string_view name) {
    std::vector<EValue*> ptrs = pointers();
    return call(name, ptrs, parallel_);
  }

 private:
  Args& push(EValue v) {
    values_.push_back(v);
    return *this;
  }
  TensorListRef list(const std::vector<HostTensor*>& tensors) {
    auto& ptrs = item_ptrs_.emplace_back();
    for (HostTensor* h : tensors) {
      ptrs.push_back(h == nullptr ? &items_.emplace_back()
                                  : &items_.emplace_back(EValue::from_tensor(&h->tensor())));
    }
    return TensorListRef(ptrs.data(), ptrs.size());
  }
  std::vector<EValue*> pointers() {
    std::vector<EValue*> ptrs;
    for (EValue& v : values_) ptrs.push_back(&v);
    return ptrs;
  }
  static KernelContext call(std::string_view name, std::vector<EValue*>& ptrs,
                            ParallelRunner* parallel) {
    KernelFn fn = default_kernel_registry().find(name);
    const bool found = fn != nullptr;
    REQUIRE_MESSAGE(found, std::string(name));
    constexpr size_t kTempBytes = size_t{16} << 20;
    static const std::unique_ptr<uint8_t[]> buffer(new uint8_t[kTempBytes]);
    static MemoryAllocator temp({buffer.get(), kTempBytes});
    temp.reset();
    KernelContext ctx(&temp, parallel);
    fn(ctx, ptrs);
    return ctx;
  }

  std::deque<EValue> values_;
  std::deque<EValue> items_;
  std::deque<std::vector<EValue*>> item_ptrs_;
  std::deque<std::vector<int64_t>> scratch_;
  std::deque<std::string> strings_;
  ParallelRunner* parallel_ = nullptr;
};

/// True if `name` is in the default registry.
inline bool registered(std::string_view name) {
  return default_kernel_registry().find(name) != nullptr;
}

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
    if (std::isinf(want[i])) {
      CHECK(got[i] == want[i]);  // Approx of an infinity subtracts infinities
    } else {
      CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-6));
    }
  }
}

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

}  // namespace etkit::test
