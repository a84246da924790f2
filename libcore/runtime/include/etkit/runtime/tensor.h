#pragma once

// `Tensor`: a view of typed, strided memory with a shape, as kernels and methods see it.
//
// A `Tensor` does not own anything: its sizes, dim order, strides and data live in memory owned
// by someone else (a method's allocator, a `HostTensor`, a test). Strides are derived from sizes
// and dim order exactly as ExecuTorch does; the dim order is outermost to innermost.

#include <cstddef>
#include <cstdint>
#include <span>

#include "etkit/runtime/error.h"
#include "etkit/runtime/scalar_type.h"

namespace etkit {

/// Maximum tensor rank, as in ExecuTorch (`kTensorDimensionLimit`).
inline constexpr int kMaxRank = 16;

/// 0, 1, ..., kMaxRank-1: the dim order of a contiguous tensor, used where a file omits it.
inline constexpr uint8_t kIdentityDimOrder[kMaxRank] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                        8, 9, 10, 11, 12, 13, 14, 15};

/// Whether a tensor's shape may change at run time.
enum class ShapeDynamism : uint8_t {
  Static = 0,          ///< Sizes never change.
  DynamicBound = 1,    ///< Sizes may shrink within the planned upper bound.
  DynamicUnbound = 2,  ///< Sizes may grow without bound (not supported by etkit's runtime).
};

/// Fills `strides` (length `sizes.size()`) for `sizes` laid out in `dim_order`. A zero-size
/// dimension does not scale the next stride (ExecuTorch's rule). Returns false if `dim_order` is
/// not a permutation of 0..rank-1 or a stride exceeds int32 (possible even with no elements: a
/// zero-size dimension leaves the others free). Loaders of untrusted shapes call it to check.
bool compute_strides(std::span<const int32_t> sizes, std::span<const uint8_t> dim_order,
                     std::span<int32_t> strides);

/// True if `dim_order` is 0, 1, ..., rank-1.
bool is_contiguous_dim_order(std::span<const uint8_t> dim_order);

/// A typed view of strided memory.
///
/// The arrays passed at construction must outlive the tensor and stay writable (`resize` writes
/// sizes and strides in place). `capacity_bytes` is the size of the memory behind `data`: a
/// `DynamicBound` tensor may be resized up to it; a `Static` tensor only to its own sizes.
class Tensor {
 public:
  Tensor() = default;
  /// `sizes`, `dim_order` and `strides` have the tensor's rank as length; `strides` is computed
  /// here. `data` may be null (unplanned memory not yet bound).
  Tensor(ScalarType dtype, std::span<int32_t> sizes, std::span<uint8_t> dim_order,
         std::span<int32_t> strides, void* data, ShapeDynamism dynamism = ShapeDynamism::Static);

  ScalarType dtype() const { return dtype_; }
  int dim() const { return static_cast<int>(rank_); }
  std::span<const int32_t> sizes() const { return {sizes_, rank_}; }
  std::span<const int32_t> strides() const { return {strides_, rank_}; }
  std::span<const uint8_t> dim_order() const { return {dim_order_, rank_}; }
  /// Size of dimension `d`; negative `d` counts from the end.
  int64_t size(int d) const { return sizes_[d < 0 ? d + dim() : d]; }
  int64_t stride(int d) const { return strides_[d < 0 ? d + dim() : d]; }
  int64_t numel() const { return numel_; }
  size_t element_size() const { return etkit::element_size(dtype_); }
  size_t nbytes() const { return static_cast<size_t>(numel_) * element_size(); }
  ShapeDynamism dynamism() const { return dynamism_; }
  /// Bytes of memory behind `data()` (the planned upper bound for dynamic tensors).
  size_t capacity_bytes() const { return capacity_bytes_; }
  /// True if the memory is laid out in dim order 0..rank-1 (a C-order array).
  bool is_contiguous() const { return is_contiguous_dim_order(dim_order()); }

  void* data() const { return data_; }
  template <typename T>
  T* data_as() const {
    return static_cast<T*>(data_);
  }

  /// Binds new memory of `capacity_bytes` bytes (an input's or output's caller buffer; null
  /// unbinds).
  void set_data(void* data, size_t capacity_bytes) {
    data_ = data;
    capacity_bytes_ = capacity_bytes;
  }
  void set_capacity_bytes(size_t bytes) { capacity_bytes_ = bytes; }

  /// Changes the sizes, keeping rank and dim order. A `Static` tensor accepts only its current
  /// sizes; a dynamic one any sizes whose bytes fit `capacity_bytes()`. Errors:
  /// `InvalidArgument` (rank differs, negative size, too big).
  Error resize(std::span<const int32_t> new_sizes);

 private:
  void recompute();

  int32_t* sizes_ = nullptr;
  uint8_t* dim_order_ = nullptr;
  int32_t* strides_ = nullptr;
  void* data_ = nullptr;
  int64_t numel_ = 1;
  size_t capacity_bytes_ = 0;
  size_t rank_ = 0;
  ScalarType dtype_ = ScalarType::Float;
  ShapeDynamism dynamism_ = ShapeDynamism::Static;
};

/// Formats `sizes` as "[2, 3]" into `out` (always terminated). Returns `out`.
const char* format_sizes(std::span<const int32_t> sizes, char* out, size_t out_size);

}  // namespace etkit

namespace etkit {

/// Copies the elements of `src` into `dst`, which has the same dtype and sizes but may have
/// another dim order (each element lands at its logical index).
void copy_tensor_data(const Tensor& src, Tensor& dst);

}  // namespace etkit

namespace etkit {

/// Memory offset, in elements, of the element at logical (row-major over the sizes) position
/// `n` of `t`, whatever its dim order.
int64_t logical_to_memory_index(const Tensor& t, int64_t n);

}  // namespace etkit
