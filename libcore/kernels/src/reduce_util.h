#pragma once

// The walk shared by the reduction kernels (reduce_ops.cpp, minmax_ops.cpp, variance_ops.cpp,
// any_ops.cpp): which dimensions are kept and reduced, and loops over output elements and over
// the reduced elements of each. Nothing allocates.

#include <cmath>
#include <cstdint>
#include <span>
#include <type_traits>

#include "etkit/kernels/kernel_util.h"

namespace etkit::kernels {

// The dimensions of a reduction: kept ones walk the output, reduced ones are visited for each
// output element, in logical order.
struct ReducePlan {
  int num_kept = 0;
  int num_reduced = 0;
  int32_t kept_size[kMaxRank] = {};
  int64_t kept_in_stride[kMaxRank] = {};
  int64_t kept_out_stride[kMaxRank] = {};
  int32_t red_size[kMaxRank] = {};
  int64_t red_in_stride[kMaxRank] = {};
  int64_t red_numel = 1;
};

// Checks the reduced dimensions (`dims` empty = all), resizes out and fills `plan`.
inline bool plan_reduction(KernelContext& ctx, const Tensor& self, std::span<const int64_t> dims,
                    bool keepdim, Tensor& out, ReducePlan* plan) {
  const int rank = self.dim();
  bool reduce[kMaxRank] = {};
  if (dims.empty()) {
    for (int d = 0; d < rank; ++d) reduce[d] = true;  // None or [] reduces everything
  }
  for (const int64_t raw : dims) {
    int d;
    if (!normalize_dim(ctx, raw, rank, "dim", &d)) return false;
    if (rank == 0) continue;  // a 0-d tensor "reduces" dim 0 to itself
    if (reduce[d]) {
      ctx.fail(ErrorCode::InvalidArgument, "dim %d appears more than once", d);
      return false;
    }
    reduce[d] = true;
  }
  Shape shape;
  for (int d = 0; d < rank; ++d) {
    if (!reduce[d]) {
      shape.sizes[shape.rank++] = self.sizes()[static_cast<size_t>(d)];
    } else if (keepdim) {
      shape.sizes[shape.rank++] = 1;
    }
  }
  if (!resize_out(ctx, out, shape.span())) return false;
  int out_dim = 0;
  for (int d = 0; d < rank; ++d) {
    if (reduce[d]) {
      plan->red_size[plan->num_reduced] = self.sizes()[static_cast<size_t>(d)];
      plan->red_in_stride[plan->num_reduced] = self.stride(d);
      plan->red_numel *= self.size(d);
      ++plan->num_reduced;
      if (keepdim) ++out_dim;
    } else {
      plan->kept_size[plan->num_kept] = self.sizes()[static_cast<size_t>(d)];
      plan->kept_in_stride[plan->num_kept] = self.stride(d);
      plan->kept_out_stride[plan->num_kept] = out.stride(out_dim);
      ++plan->num_kept;
      ++out_dim;
    }
  }
  return true;
}

// Fails (InvalidArgument) if a reduced dimension is empty (amax and argmax have no identity).
inline bool check_nonempty_reduction(KernelContext& ctx, const Tensor& self, const ReducePlan& plan,
                              const char* op) {
  if (plan.red_numel == 0) {
    ctx.fail(ErrorCode::InvalidArgument,
             "%s of self with sizes %s reduces an empty dimension, which has no result", op,
             SizesText(self.sizes()).text);
    return false;
  }
  return true;
}

// Calls `f(in_base, out_offset)` for each output element.
template <typename F>
void for_each_output(const ReducePlan& plan, int64_t out_numel, F f) {
  int64_t ki[kMaxRank] = {};
  int64_t in_base = 0;
  int64_t out_off = 0;
  for (int64_t n = out_numel; n > 0; --n) {
    f(in_base, out_off);
    for (int k = plan.num_kept - 1; k >= 0; --k) {
      if (++ki[k] < plan.kept_size[k]) {
        in_base += plan.kept_in_stride[k];
        out_off += plan.kept_out_stride[k];
        break;
      }
      in_base -= plan.kept_in_stride[k] * (ki[k] - 1);
      out_off -= plan.kept_out_stride[k] * (ki[k] - 1);
      ki[k] = 0;
    }
  }
}

// Calls `g(in_offset)` for each reduced element of the output element at `in_base`, in logical
// order (so the n-th call is flat index n of the reduced dimensions).
template <typename G>
void for_each_reduced(const ReducePlan& plan, int64_t in_base, G g) {
  if (plan.red_numel == 0) return;
  if (plan.num_reduced == 0) {
    g(in_base);
    return;
  }
  const int last = plan.num_reduced - 1;
  const int64_t n = plan.red_size[last];
  const int64_t stride = plan.red_in_stride[last];
  int64_t ri[kMaxRank] = {};
  int64_t off = in_base;
  for (;;) {
    for (int64_t j = 0; j < n; ++j) g(off + j * stride);
    int k = last - 1;
    for (; k >= 0; --k) {
      if (++ri[k] < plan.red_size[k]) {
        off += plan.red_in_stride[k];
        break;
      }
      off -= plan.red_in_stride[k] * (ri[k] - 1);
      ri[k] = 0;
    }
    if (k < 0) return;
  }
}

template <typename T>
inline bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    (void)v;
    return false;
  }
}

}  // namespace etkit::kernels
