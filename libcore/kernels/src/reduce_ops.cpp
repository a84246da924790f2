// Reductions: sum and mean over a list of dimensions, amax, and argmax.
//
// sum converts the input to the result dtype first (as PyTorch does with `dtype=`); floating sums
// accumulate in double, integer sums in uint64 (wrapping like the result type would). mean
// accumulates in double. amax propagates NaN; argmax returns the first maximum, a NaN counting
// as the maximum.

#include <cmath>
#include <type_traits>

#include "etkit/kernels/kernel_util.h"
#include "kernels.h"

namespace etkit::kernels {
namespace {

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
bool plan_reduction(KernelContext& ctx, const Tensor& self, std::span<const int64_t> dims,
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
bool check_nonempty_reduction(KernelContext& ctx, const Tensor& self, const ReducePlan& plan,
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

// The arguments of sum.IntList_out and mean.out: (self, dim?, keepdim, *, dtype?, out), both
// tensors of computed dtypes.
struct DimDtypeArgs {
  Tensor* self = nullptr;
  std::span<const int64_t> dims;
  bool keepdim = false;
  bool has_dtype = false;
  ScalarType dtype = ScalarType::Float;
  Tensor* out = nullptr;
};

bool dim_dtype_args(KernelContext& ctx, std::span<EValue*> args, DimDtypeArgs* a) {
  if (!check_num_args(ctx, args, 5)) return false;
  a->self = tensor_arg(ctx, args, 0, "self");
  if (a->self == nullptr) return false;
  bool has_dims;
  if (!int_list_arg(ctx, args, 1, "dim", true, &has_dims, &a->dims)) return false;
  if (!bool_arg(ctx, args, 2, "keepdim", &a->keepdim)) return false;
  if (!optional_dtype_arg(ctx, args, 3, "dtype", &a->has_dtype, &a->dtype)) return false;
  a->out = tensor_arg(ctx, args, 4, "out");
  if (a->out == nullptr) return false;
  return check_computed_dtype(ctx, *a->self, "self") && check_computed_dtype(ctx, *a->out, "out");
}

template <typename C>
void sum_into(const Tensor& self, Tensor& out, const ReducePlan& plan) {
  using Acc = std::conditional_t<std::is_floating_point_v<C>, double,
                                 std::conditional_t<std::is_same_v<C, bool>, bool, uint64_t>>;
  C* o = out.data_as<C>();
  const void* in = self.data();
  const ScalarType in_type = self.dtype();
  for_each_output(plan, out.numel(), [&](int64_t in_base, int64_t out_off) {
    Acc acc = Acc(0);
    for_each_reduced(plan, in_base, [&](int64_t off) {
      const C v = load_as<C>(in, in_type, off);
      if constexpr (std::is_same_v<Acc, bool>) {
        acc = acc || v;
      } else if constexpr (std::is_same_v<Acc, uint64_t>) {
        acc += static_cast<uint64_t>(v);
      } else {
        acc += static_cast<double>(v);
      }
    });
    o[out_off] = static_cast<C>(acc);
  });
}

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    (void)v;
    return false;
  }
}

}  // namespace

void sum_intlist_out(KernelContext& ctx, std::span<EValue*> args) {
  DimDtypeArgs a;
  if (!dim_dtype_args(ctx, args, &a)) return;
  Tensor* self = a.self;
  Tensor* out = a.out;

  // PyTorch: integral and bool inputs sum to int64 unless dtype says otherwise.
  const ScalarType result = a.has_dtype                                ? a.dtype
                            : is_integral_type(self->dtype(), true) ? ScalarType::Long
                                                                      : self->dtype();
  if (out->dtype() != result) {
    ctx.fail(ErrorCode::InvalidType, "out has dtype %s, expected %s%s",
             scalar_type_name(out->dtype()), scalar_type_name(result),
             a.has_dtype ? " (the requested dtype)" : " (the sum dtype of self)");
    return;
  }
  ReducePlan plan;
  if (!plan_reduction(ctx, *self, a.dims, a.keepdim, *out, &plan) || out->numel() == 0) return;
  dispatch_dtype(out->dtype(), [&](auto tag) {
    sum_into<typename decltype(tag)::type>(*self, *out, plan);
  });
}

namespace {

// mean.out(self, dim, keepdim=False, *, dtype=None, out). The result dtype is dtype if given
// (floating), else self's (floating); out may be any floating dtype without dtype. An empty
// reduction gives NaN (0 / 0), as in PyTorch.
void mean_out(KernelContext& ctx, std::span<EValue*> args) {
  DimDtypeArgs a;
  if (!dim_dtype_args(ctx, args, &a)) return;
  Tensor* self = a.self;
  Tensor* out = a.out;
  if (a.has_dtype) {
    if (!is_floating_type(a.dtype)) {
      ctx.fail(ErrorCode::InvalidType, "dtype is %s, expected a floating dtype",
               scalar_type_name(a.dtype));
      return;
    }
    if (!check_dtype_is(ctx, *out, "out", a.dtype)) return;
  } else {
    if (!is_floating_type(self->dtype())) {
      ctx.fail(ErrorCode::InvalidType,
               "self has dtype %s; the mean of a non-floating tensor needs a floating dtype",
               scalar_type_name(self->dtype()));
      return;
    }
    if (!is_floating_type(out->dtype())) {
      ctx.fail(ErrorCode::InvalidType, "out has dtype %s, expected a floating dtype",
               scalar_type_name(out->dtype()));
      return;
    }
  }
  ReducePlan plan;
  if (!plan_reduction(ctx, *self, a.dims, a.keepdim, *out, &plan) || out->numel() == 0) return;
  const double count = static_cast<double>(plan.red_numel);
  const void* in = self->data();
  const ScalarType in_type = self->dtype();
  // When dtype is given, self is converted to it before summing (as PyTorch does).
  const ScalarType sum_type = a.has_dtype ? a.dtype : in_type;
  dispatch_dtype(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    C* o = out->data_as<C>();
    for_each_output(plan, out->numel(), [&](int64_t in_base, int64_t out_off) {
      double acc = 0.0;
      if (sum_type == ScalarType::Float) {
        for_each_reduced(plan, in_base, [&](int64_t off) {
          acc += static_cast<double>(load_as<float>(in, in_type, off));
        });
      } else {
        for_each_reduced(plan, in_base,
                         [&](int64_t off) { acc += load_as<double>(in, in_type, off); });
      }
      o[out_off] = static_cast<C>(acc / count);
    });
  });
}

// amax.out(self, dim=[], keepdim=False, *, out): out has self's dtype.
void amax_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool has_dims;
  std::span<const int64_t> dims;
  if (!int_list_arg(ctx, args, 1, "dim", false, &has_dims, &dims)) return;
  bool keepdim;
  if (!bool_arg(ctx, args, 2, "keepdim", &keepdim)) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr) return;
  if (!check_computed_dtype(ctx, *self, "self") ||
      !check_dtype_is(ctx, *out, "out", self->dtype())) {
    return;
  }
  ReducePlan plan;
  if (!plan_reduction(ctx, *self, dims, keepdim, *out, &plan) ||
      !check_nonempty_reduction(ctx, *self, plan, "amax") || out->numel() == 0) {
    return;
  }
  dispatch_dtype(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    using S = std::conditional_t<std::is_same_v<C, bool>, uint8_t, C>;
    const S* in = self->data_as<const S>();
    S* o = out->data_as<S>();
    for_each_output(plan, out->numel(), [&](int64_t in_base, int64_t out_off) {
      S best = in[in_base];
      for_each_reduced(plan, in_base, [&](int64_t off) {
        const S v = in[off];
        if (v > best || is_nan(v)) best = is_nan(best) ? best : v;
      });
      o[out_off] = best;
    });
  });
}

// argmax.out(self, dim=None, keepdim=False, *, out): int64 indices along dim, or into the
// flattened tensor when dim is None.
void argmax_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool has_dim = false;
  int64_t dim = 0;
  if (!optional_plain_int_arg(ctx, args, 1, "dim", &has_dim, &dim)) return;
  bool keepdim;
  if (!bool_arg(ctx, args, 2, "keepdim", &keepdim)) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr) return;
  if (!check_computed_dtype(ctx, *self, "self") ||
      !check_dtype_is(ctx, *out, "out", ScalarType::Long)) {
    return;
  }
  if (self->dtype() == ScalarType::Bool) {
    ctx.fail(ErrorCode::InvalidType, "self has dtype bool, which argmax does not support");
    return;
  }
  std::span<const int64_t> dims;
  if (has_dim) dims = {&dim, 1};
  ReducePlan plan;
  if (!plan_reduction(ctx, *self, dims, keepdim, *out, &plan) ||
      !check_nonempty_reduction(ctx, *self, plan, "argmax") || out->numel() == 0) {
    return;
  }
  int64_t* o = out->data_as<int64_t>();
  dispatch_dtype(self->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    using S = std::conditional_t<std::is_same_v<C, bool>, uint8_t, C>;
    const S* in = self->data_as<const S>();
    for_each_output(plan, out->numel(), [&](int64_t in_base, int64_t out_off) {
      S best = in[in_base];
      int64_t best_index = 0;
      int64_t index = 0;
      for_each_reduced(plan, in_base, [&](int64_t off) {
        const S v = in[off];
        if (!is_nan(best) && (v > best || is_nan(v))) {
          best = v;
          best_index = index;
        }
        ++index;
      });
      o[out_off] = best_index;
    });
  });
}

}  // namespace

std::span<const KernelEntry> reduce_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::amax.out", amax_out},
      {"aten::argmax.out", argmax_out},
      {"aten::mean.out", mean_out},
      {"aten::sum.IntList_out", sum_intlist_out},
  };
  return kTable;
}

}  // namespace etkit::kernels
