#include "etkit/runtime/tensor.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>


namespace etkit {

bool compute_strides(std::span<const int32_t> sizes, std::span<const uint8_t> dim_order,
                     std::span<int32_t> strides) {
  const size_t rank = sizes.size();
  if (dim_order.size() != rank || strides.size() != rank) return false;
  uint32_t seen = 0;
  for (uint8_t d : dim_order) {
    if (d >= rank || (seen & (1u << d)) != 0) return false;
    seen |= 1u << d;
  }
  // `running` stays at most INT32_MAX before each product, and sizes are int32, so the product
  // fits in int64; a stride beyond int32 is refused before it is stored.
  int64_t running = 1;
  for (size_t k = rank; k-- > 0;) {
    const uint8_t d = dim_order[k];
    if (running > INT32_MAX) return false;
    strides[d] = static_cast<int32_t>(running);
    // A zero-size dimension does not scale the next stride (ExecuTorch's dim_order_util rule).
    if (sizes[d] > 0) running *= sizes[d];
  }
  return true;
}

bool is_contiguous_dim_order(std::span<const uint8_t> dim_order) {
  for (size_t i = 0; i < dim_order.size(); ++i) {
    if (dim_order[i] != i) return false;
  }
  return true;
}

Tensor::Tensor(ScalarType dtype, std::span<int32_t> sizes, std::span<uint8_t> dim_order,
               std::span<int32_t> strides, void* data, ShapeDynamism dynamism)
    : sizes_(sizes.data()),
      dim_order_(dim_order.data()),
      strides_(strides.data()),
      data_(data),
      rank_(sizes.size()),
      dtype_(dtype),
      dynamism_(dynamism) {
  recompute();
  capacity_bytes_ = nbytes();
}

void Tensor::recompute() {
  // A zero-size dimension anywhere makes the count 0, whatever the product of the others (which
  // need not fit in int64). Loaders check shapes with `compute_strides` before they build one.
  int64_t numel = 1;
  bool zero = false;
  for (size_t i = 0; i < rank_; ++i) {
    zero = zero || sizes_[i] == 0;
    if (!zero && __builtin_mul_overflow(numel, int64_t{sizes_[i]}, &numel)) numel = INT64_MAX;
  }
  numel_ = zero ? 0 : numel;
  compute_strides(sizes(), dim_order(), {strides_, rank_});
}

Error Tensor::resize(std::span<const int32_t> new_sizes) {
  if (new_sizes.size() != rank_) {
    return Error(ErrorCode::InvalidArgument, "cannot resize a rank-%zu tensor to rank %zu", rank_,
                 new_sizes.size());
  }
  bool same = true;
  int64_t numel = 1;
  bool overflow = false;
  for (size_t i = 0; i < rank_; ++i) {
    if (new_sizes[i] < 0) {
      return Error(ErrorCode::InvalidArgument, "negative size %d in dimension %zu", new_sizes[i], i);
    }
    if (new_sizes[i] != sizes_[i]) same = false;
    overflow = overflow || __builtin_mul_overflow(numel, int64_t{new_sizes[i]}, &numel);
  }
  if (same) return Error();
  uint64_t bytes = 0;
  overflow = overflow || __builtin_mul_overflow(static_cast<uint64_t>(numel),
                                                uint64_t{element_size()}, &bytes);
  const bool is_static = dynamism_ == ShapeDynamism::Static;
  if (is_static || overflow || bytes > capacity_bytes_) {
    // Only a failing resize formats anything: resizing runs in every dynamic-shape kernel.
    char want[160];
    char have[160];
    format_sizes(new_sizes, want, sizeof(want));
    format_sizes(sizes(), have, sizeof(have));
    if (is_static) {
      return Error(ErrorCode::InvalidArgument, "cannot resize static tensor %s to %s", have, want);
    }
    char count[24] = "more than 2^64";
    if (!overflow) std::snprintf(count, sizeof(count), "%" PRIu64, bytes);
    return Error(ErrorCode::InvalidArgument,
                 "cannot resize tensor %s to %s: %s bytes exceed its bound of %zu bytes", have,
                 want, count, capacity_bytes_);
  }
  int32_t strides[kMaxRank];
  if (rank_ > static_cast<size_t>(kMaxRank) ||
      !compute_strides(new_sizes, dim_order(), {strides, rank_})) {
    char want[160];
    char have[160];
    format_sizes(new_sizes, want, sizeof(want));
    format_sizes(sizes(), have, sizeof(have));
    return Error(ErrorCode::InvalidArgument,
                 "cannot resize tensor %s to %s: a stride exceeds 2^31-1", have, want);
  }
  for (size_t i = 0; i < rank_; ++i) {
    sizes_[i] = new_sizes[i];
    strides_[i] = strides[i];
  }
  numel_ = numel;
  return Error();
}

const char* format_sizes(std::span<const int32_t> sizes, char* out, size_t out_size) {
  if (out_size == 0) return out;
  size_t pos = 0;
  auto put = [&](const char* s) {
    int n = std::snprintf(out + pos, out_size - pos, "%s", s);
    if (n > 0) pos = std::min(out_size - 1, pos + static_cast<size_t>(n));
  };
  put("[");
  char buf[16];
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::snprintf(buf, sizeof(buf), i == 0 ? "%d" : ", %d", sizes[i]);
    put(buf);
  }
  put("]");
  return out;
}

void copy_tensor_data(const Tensor& src, Tensor& dst) {
  const size_t es = src.element_size();
  const int rank = src.dim();
  if (src.numel() == 0) return;
  if (std::equal(src.dim_order().begin(), src.dim_order().end(), dst.dim_order().begin())) {
    std::memcpy(dst.data(), src.data(), src.nbytes());
    return;
  }
  int64_t index[kMaxRank] = {};
  const auto* in = static_cast<const uint8_t*>(src.data());
  auto* out = static_cast<uint8_t*>(dst.data());
  for (int64_t n = 0; n < src.numel(); ++n) {
    int64_t from = 0;
    int64_t to = 0;
    for (int d = 0; d < rank; ++d) {
      from += index[d] * src.stride(d);
      to += index[d] * dst.stride(d);
    }
    std::memcpy(out + static_cast<size_t>(to) * es, in + static_cast<size_t>(from) * es, es);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < src.size(d)) break;
      index[d] = 0;
    }
  }
}

int64_t logical_to_memory_index(const Tensor& t, int64_t n) {
  int64_t offset = 0;
  for (int d = t.dim() - 1; d >= 0; --d) {
    const int64_t size = t.size(d);
    offset += (n % size) * t.stride(d);
    n /= size;
  }
  return offset;
}

}  // namespace etkit
