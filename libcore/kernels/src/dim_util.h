#pragma once

// Private helpers of the data-movement kernels (shape, copy, index, creation, pad, reduce):
// PyTorch's rules for wrapping indices, clamping slices and checking size lists, and `BlockPlan`,
// a strided walk over a block of elements that moves contiguous runs with memcpy.
//
// A kernel describes what it moves as a block: sizes plus one element stride per dimension for
// the destination and for the source. The plan drops size-1 dimensions, orders the rest by
// destination stride (so the destination is written in memory order whatever its dim order) and
// merges dimensions that are contiguous in both, so a contiguous slice, cat or pad becomes a few
// long memcpy calls. Nothing here allocates.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <type_traits>

#include "etkit/runtime/tensor.h"
#include "etkit/kernels/kernel_util.h"

namespace etkit::kernels {

// ---------------------------------------------------------------------------------------------
// Argument rules.

/// Fails (InvalidType) unless `out` has `self`'s dtype and that dtype's elements can be moved as
/// bytes (1, 2, 4 or 8 bytes each).
inline bool check_movable(KernelContext& ctx, const Tensor& self, const Tensor& out) {
  if (!check_dtype_is(ctx, out, "out", self.dtype())) return false;
  if (self.element_size() == 0 || self.element_size() > 8) {
    ctx.fail(ErrorCode::InvalidType, "self has dtype %s, which cannot be copied",
             scalar_type_name(self.dtype()));
    return false;
  }
  return true;
}

/// Wraps `index` (negative counts from the end) into [0, size); fails (InvalidArgument) when out
/// of range, naming `what`.
inline bool wrap_index(KernelContext& ctx, int64_t index, int64_t size, const char* what,
                       int64_t* out) {
  if (index < -size || index >= size) {
    ctx.fail(ErrorCode::InvalidArgument, "%s %lld is out of range for a dimension of size %lld",
             what, static_cast<long long>(index), static_cast<long long>(size));
    return false;
  }
  *out = index < 0 ? index + size : index;
  return true;
}

/// PyTorch's slice clamping: a missing start is 0 and a missing end the size; negative values
/// count from the end; both clamp into [0, size] and an end before the start gives nothing.
struct SliceRange {
  int64_t start = 0;
  int64_t length = 0;
};
inline SliceRange clamp_slice(bool has_start, int64_t start, bool has_end, int64_t end,
                              int64_t size, int64_t step) {
  int64_t s = has_start ? start : 0;
  int64_t e = has_end ? end : size;
  if (s < 0) s = s < -size ? 0 : s + size;
  if (e < 0) e = e < -size ? 0 : e + size;
  if (s > size) s = size;
  if (e > size) e = size;
  SliceRange r;
  r.start = s;
  r.length = e <= s ? 0 : (e - s + step - 1) / step;
  return r;
}

/// Reads a size list (`int[]`, `SymInt[]`) into `shape`: at most kMaxRank entries, each in
/// [0, INT32_MAX]. Fails (InvalidArgument) naming `name`.
inline bool size_list_to_shape(KernelContext& ctx, std::span<const int64_t> sizes,
                               const char* name, Shape* shape) {
  if (sizes.size() > static_cast<size_t>(kMaxRank)) {
    ctx.fail(ErrorCode::InvalidArgument, "%s has %zu entries, more than the maximum rank %d",
             name, sizes.size(), kMaxRank);
    return false;
  }
  shape->rank = static_cast<int>(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0 || sizes[i] > std::numeric_limits<int32_t>::max()) {
      ctx.fail(ErrorCode::InvalidArgument, "%s[%zu] is %lld, expected a size in [0, 2^31)", name,
               i, static_cast<long long>(sizes[i]));
      return false;
    }
    shape->sizes[i] = static_cast<int32_t>(sizes[i]);
  }
  return true;
}

/// Address of the element at memory offset `offset` (in elements) of `t`.
inline char* element_ptr(const Tensor& t, int64_t offset) {
  return static_cast<char*>(t.data()) + offset * static_cast<int64_t>(t.element_size());
}

// ---------------------------------------------------------------------------------------------
// Strided blocks.

/// The storage type of a computed dtype's C++ type (Bool is read through its byte).
template <typename T>
using StorageOf = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

/// A block of elements visited in destination memory order (see the file comment).
class BlockPlan {
 public:
  /// `rank` dimensions of `sizes`, with element strides for the destination and the source (a
  /// source stride of 0 repeats the element).
  BlockPlan(int rank, const int32_t* sizes, const int64_t* dst_strides,
            const int64_t* src_strides) {
    for (int d = 0; d < rank; ++d) {
      if (sizes[d] == 0) empty_ = true;
      if (sizes[d] <= 1) continue;
      // Insertion sort by destination stride, outermost first.
      int k = rank_++;
      while (k > 0 && ds_[k - 1] < dst_strides[d]) {
        size_[k] = size_[k - 1];
        ds_[k] = ds_[k - 1];
        ss_[k] = ss_[k - 1];
        --k;
      }
      size_[k] = sizes[d];
      ds_[k] = dst_strides[d];
      ss_[k] = src_strides[d];
    }
    // Merge an outer dimension into the next inner one when both walk contiguously.
    int merged = 0;
    for (int k = 0; k < rank_; ++k) {
      if (merged > 0) {
        const int p = merged - 1;
        if (ds_[p] == ds_[k] * size_[k] && ss_[p] == ss_[k] * size_[k]) {
          size_[p] *= size_[k];
          ds_[p] = ds_[k];
          ss_[p] = ss_[k];
          continue;
        }
      }
      size_[merged] = size_[k];
      ds_[merged] = ds_[k];
      ss_[merged] = ss_[k];
      ++merged;
    }
    rank_ = merged;
  }

  bool empty() const { return empty_; }

  /// Calls `f(d, s)` for every element, `d` and `s` pointing into the destination and source.
  template <typename D, typename S, typename F>
  void for_each(D* dst, S* src, F f) const {
    if (empty_) return;
    if (rank_ == 0) {
      f(dst, src);
      return;
    }
    const int last = rank_ - 1;
    const int64_t n = size_[last];
    const int64_t dsi = ds_[last];
    const int64_t ssi = ss_[last];
    int64_t index[kMaxRank] = {};
    for (;;) {
      for (int64_t j = 0; j < n; ++j) f(dst + j * dsi, src + j * ssi);
      int k = last - 1;
      for (; k >= 0; --k) {
        if (++index[k] < size_[k]) {
          dst += ds_[k];
          src += ss_[k];
          break;
        }
        dst -= ds_[k] * (size_[k] - 1);
        src -= ss_[k] * (size_[k] - 1);
        index[k] = 0;
      }
      if (k < 0) return;
    }
  }

  /// Copies elements of `elem_size` bytes from `src` to `dst` (first elements of the block).
  void copy(void* dst, const void* src, size_t elem_size) const {
    if (empty_) return;
    if (rank_ == 0) {
      std::memcpy(dst, src, elem_size);
      return;
    }
    const int last = rank_ - 1;
    if (ds_[last] == 1 && ss_[last] == 1) {
      // Contiguous rows: one memcpy each.
      const size_t row = static_cast<size_t>(size_[last]) * elem_size;
      // The outer dimensions, in bytes.
      BlockPlan outer = *this;
      outer.rank_ = last;
      const int64_t scale = static_cast<int64_t>(elem_size);
      for (int k = 0; k < last; ++k) {
        outer.ds_[k] *= scale;
        outer.ss_[k] *= scale;
      }
      outer.for_each(static_cast<char*>(dst), static_cast<const char*>(src),
                     [row](char* d, const char* s) { std::memcpy(d, s, row); });
      return;
    }
    switch (elem_size) {
      case 1: copy_as<uint8_t>(dst, src); break;
      case 2: copy_as<uint16_t>(dst, src); break;
      case 4: copy_as<uint32_t>(dst, src); break;
      default: copy_as<uint64_t>(dst, src); break;
    }
  }

  /// Copies from `src` of dtype `src_type` to `dst` of dtype `dst_type`, converting each element
  /// (both computed dtypes; same dtypes copy bytes).
  void convert(void* dst, ScalarType dst_type, const void* src, ScalarType src_type) const {
    if (dst_type == src_type) {
      copy(dst, src, element_size(dst_type));
      return;
    }
    dispatch_dtype(dst_type, [&](auto dtag) {
      using C = typename decltype(dtag)::type;
      dispatch_dtype(src_type, [&](auto stag) {
        using S = typename decltype(stag)::type;
        for_each(static_cast<StorageOf<C>*>(dst), static_cast<const StorageOf<S>*>(src),
                 [](StorageOf<C>* d, const StorageOf<S>* s) {
                   S v;
                   if constexpr (std::is_same_v<S, bool>) {
                     v = *s != 0;
                   } else {
                     v = *s;
                   }
                   *d = static_cast<StorageOf<C>>(etkit::kernels::convert<C>(v));
                 });
      });
    });
  }

  /// Writes the `elem_size` bytes at `value` to every destination element.
  void fill(void* dst, const void* value, size_t elem_size) const {
    auto run = [&](auto tag) {
      using U = typename decltype(tag)::type;
      U v;
      std::memcpy(&v, value, sizeof(U));
      U* d = static_cast<U*>(dst);
      for_each(d, d, [v](U* p, U*) { *p = v; });
    };
    switch (elem_size) {
      case 1: run(TypeTag<uint8_t>{}); break;
      case 2: run(TypeTag<uint16_t>{}); break;
      case 4: run(TypeTag<uint32_t>{}); break;
      default: run(TypeTag<uint64_t>{}); break;
    }
  }

 private:
  template <typename U>
  void copy_as(void* dst, const void* src) const {
    for_each(static_cast<U*>(dst), static_cast<const U*>(src), [](U* d, const U* s) { *d = *s; });
  }

  int rank_ = 0;
  bool empty_ = false;
  int64_t size_[kMaxRank] = {};
  int64_t ds_[kMaxRank] = {};
  int64_t ss_[kMaxRank] = {};
};

/// Element strides of `t` as int64 (`out` has kMaxRank entries).
inline void strides_of(const Tensor& t, int64_t* out) {
  for (int d = 0; d < t.dim(); ++d) out[d] = t.stride(d);
}

/// Copies every element of `src` to the same logical position of `dst` (same dtype and sizes,
/// any dim orders).
inline void copy_same_shape(const Tensor& src, Tensor& dst) {
  if (dst.numel() == 0) return;
  int64_t ds[kMaxRank];
  int64_t ss[kMaxRank];
  strides_of(dst, ds);
  strides_of(src, ss);
  bool same_memory = src.data() == dst.data();
  for (int d = 0; same_memory && d < dst.dim(); ++d) same_memory = ds[d] == ss[d];
  if (same_memory) return;  // out aliases self: nothing to move
  BlockPlan(dst.dim(), dst.sizes().data(), ds, ss).copy(dst.data(), src.data(),
                                                         dst.element_size());
}

}  // namespace etkit::kernels
