// Reductions: sum, prod and mean over a list of dimensions (or all of them), amax, and argmax.
//
// sum converts the input to the result dtype first (as PyTorch does with `dtype=`); floating sums
// accumulate in double, integer sums in uint64 (wrapping like the result type would). mean
// accumulates in double. amax propagates NaN; argmax returns the first maximum, a NaN counting
// as the maximum.

#include <cmath>
#include <type_traits>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "reduce_util.h"

namespace etkit::kernels {
namespace {

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


// The result dtype of sum and prod: dtype if given, else int64 for integral and bool inputs,
// else self's dtype; out must have it.
bool sum_like_result(KernelContext& ctx, const Tensor& self, const Tensor& out, bool has_dtype,
                     ScalarType dtype) {
  const ScalarType result = has_dtype                                ? dtype
                            : is_integral_type(self.dtype(), true) ? ScalarType::Long
                                                                     : self.dtype();
  if (out.dtype() != result) {
    ctx.fail(ErrorCode::InvalidType, "out has dtype %s, expected %s%s",
             scalar_type_name(out.dtype()), scalar_type_name(result),
             has_dtype ? " (the requested dtype)" : " (the result dtype of self)");
    return false;
  }
  return true;
}

// Products accumulate in double for floating results, in wrapping uint64 for integers (as the
// sum does); bool is a logical and. An empty product is 1.
template <typename C>
void prod_into(const Tensor& self, Tensor& out, const ReducePlan& plan) {
  C* o = out.data_as<C>();
  const void* in = self.data();
  const ScalarType in_type = self.dtype();
  for_each_output(plan, out.numel(), [&](int64_t in_base, int64_t out_off) {
    if constexpr (std::is_floating_point_v<C>) {
      double acc = 1.0;
      for_each_reduced(plan, in_base, [&](int64_t off) { acc *= load_as<double>(in, in_type, off); });
      o[out_off] = static_cast<C>(acc);
    } else if constexpr (std::is_same_v<C, bool>) {
      bool acc = true;
      for_each_reduced(plan, in_base, [&](int64_t off) { acc = acc && load_as<bool>(in, in_type, off); });
      o[out_off] = acc;
    } else {
      uint64_t acc = 1;
      for_each_reduced(plan, in_base, [&](int64_t off) {
        acc *= static_cast<uint64_t>(load_as<C>(in, in_type, off));
      });
      o[out_off] = static_cast<C>(acc);
    }
  });
}

void prod_common(KernelContext& ctx, Tensor& self, std::span<const int64_t> dims, bool keepdim,
                 bool has_dtype, ScalarType dtype, Tensor& out) {
  if (!check_computed_dtype(ctx, self, "self") || !check_computed_dtype(ctx, out, "out") ||
      !sum_like_result(ctx, self, out, has_dtype, dtype)) {
    return;
  }
  ReducePlan plan;
  if (!plan_reduction(ctx, self, dims, keepdim, out, &plan) || out.numel() == 0) return;
  dispatch_dtype(out.dtype(), [&](auto tag) {
    prod_into<typename decltype(tag)::type>(self, out, plan);
  });
}

// prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out)
void prod_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool has_dtype = false;
  ScalarType dtype = ScalarType::Float;
  if (!optional_dtype_arg(ctx, args, 1, "dtype", &has_dtype, &dtype)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  prod_common(ctx, *self, {}, false, has_dtype, dtype, *out);
}

// prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None, out)
void prod_int_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 5)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  int64_t dim = 0;
  if (!int_arg(ctx, args, 1, "dim", &dim)) return;
  bool keepdim = false;
  if (!bool_arg(ctx, args, 2, "keepdim", &keepdim)) return;
  bool has_dtype = false;
  ScalarType dtype = ScalarType::Float;
  if (!optional_dtype_arg(ctx, args, 3, "dtype", &has_dtype, &dtype)) return;
  Tensor* out = tensor_arg(ctx, args, 4, "out");
  if (out == nullptr) return;
  prod_common(ctx, *self, std::span<const int64_t>(&dim, 1), keepdim, has_dtype, dtype, *out);
}

// mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out): the mean of every
// element; mean.out with dim None and keepdim false.
void mean_dtype_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  EValue none;
  EValue keepdim = EValue::from_bool(false);
  EValue* full[6] = {args[0], &none, &keepdim, args[1], args[2], args[3]};
  mean_out(ctx, std::span<EValue*>(full));
}

}  // namespace

std::span<const KernelEntry> reduce_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::amax.out", via_float32<amax_out>, kArithmeticDtypes},
      {"aten::argmax.out", via_float32<argmax_out>, kNumericDtypes},
      {"aten::mean.dtype_out", via_float32<mean_dtype_out, 1>, kFloatingDtypes},
      {"aten::mean.out", via_float32<mean_out, 3>, kFloatingDtypes},
      {"aten::prod.int_out", via_float32<prod_int_out, 3>, kArithmeticDtypes},
      {"aten::prod.out", via_float32<prod_out, 1>, kArithmeticDtypes},
      {"aten::sum.IntList_out", via_float32<sum_intlist_out, 3>, kArithmeticDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
