#pragma once

// `HostTensor`: a tensor that owns its shape arrays and data (host code: tools, tests, loaders
// of .npy files and bundled test cases). Not for the runtime's hot path: it allocates.

#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <vector>

#include "etkit/runtime/tensor.h"

namespace etkit {

namespace detail {
/// Allocates on cache-line boundaries, as a planned arena is: an operand that starts mid-line
/// makes every row of a kernel's packing straddle two lines, and benchmarks on host tensors
/// would then measure that instead of the kernel.
template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{64};
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlignment); }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
};
}  // namespace detail

/// An owning tensor. Copying copies the data; the `Tensor` view follows the object.
class HostTensor {
 public:
  HostTensor() : HostTensor(ScalarType::Float, {}) {}
  /// Zero-filled, contiguous (or in `dim_order` if given).
  HostTensor(ScalarType dtype, std::span<const int32_t> sizes,
             std::span<const uint8_t> dim_order = {});
  HostTensor(const HostTensor& other);
  HostTensor& operator=(const HostTensor& other);
  HostTensor(HostTensor&& other) noexcept;
  HostTensor& operator=(HostTensor&& other) noexcept;

  /// A contiguous tensor holding `values` (converted to `dtype`), for tests.
  template <typename T>
  static HostTensor from(ScalarType dtype, std::span<const int32_t> sizes,
                         std::initializer_list<T> values);

  Tensor& tensor() { return tensor_; }
  const Tensor& tensor() const { return tensor_; }
  void* data() { return data_.data(); }
  const void* data() const { return data_.data(); }
  size_t nbytes() const { return tensor_.nbytes(); }

 private:
  void rebind();
  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int32_t> strides_;
  std::vector<uint64_t, detail::CacheLineAllocator<uint64_t>> data_;  // 64-byte aligned
  Tensor tensor_;
};

/// Reads element `i` (in memory order) of `t` as double. Bool reads 0/1.
double read_element_as_double(const Tensor& t, int64_t i);
/// Writes element `i` (in memory order) of `t` from a double, converting to its dtype.
void write_element_from_double(Tensor& t, int64_t i, double value);

template <typename T>
HostTensor HostTensor::from(ScalarType dtype, std::span<const int32_t> sizes,
                            std::initializer_list<T> values) {
  HostTensor h(dtype, sizes);
  int64_t i = 0;
  for (const T& v : values) {
    if (i >= h.tensor().numel()) break;
    write_element_from_double(h.tensor(), i++, static_cast<double>(v));
  }
  return h;
}

}  // namespace etkit
