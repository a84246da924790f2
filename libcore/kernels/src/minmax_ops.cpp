// Minimum and maximum reductions: amin, argmin, max.dim / min.dim (values and indices) and
// max / min of the whole tensor (unary_out).
//
// As PyTorch: NaN propagates (a NaN is the extreme, and its first index is returned); ties give
// the first index; an empty reduced dimension fails (there is no identity). Values keep self's
// dtype; indices are int64.

#include <cstdint>
#include <type_traits>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "dim_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "reduce_util.h"

namespace etkit::kernels {
namespace {

// Whether `v` replaces `best` (kMax: larger, else smaller); NaN wins and stays.
template <bool kMax, typename S>
inline bool better(S v, S best) {
  if (is_nan(best)) return false;
  if (is_nan(v)) return true;
  return kMax ? v > best : v < best;
}

// Writes the extreme of each output element into `values` (may be null) or its index into
// `indices` (may be null), whichever out `plan` was made for; self and values share a dtype.
template <bool kMax>
void extreme(const Tensor& self, const ReducePlan& plan, Tensor* values, Tensor* indices,
             int64_t out_numel) {
  dispatch_dtype(self.dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    using S = StorageOf<C>;
    const S* in = self.data_as<const S>();
    S* v_out = values != nullptr ? values->data_as<S>() : nullptr;
    int64_t* i_out = indices != nullptr ? indices->data_as<int64_t>() : nullptr;
    for_each_output(plan, out_numel, [&](int64_t in_base, int64_t out_off) {
      S best = in[in_base];
      int64_t best_index = 0;
      int64_t index = 0;
      for_each_reduced(plan, in_base, [&](int64_t off) {
        const S v = in[off];
        if (better<kMax>(v, best)) {
          best = v;
          best_index = index;
        }
        ++index;
      });
      if (v_out != nullptr) v_out[out_off] = best;
      if (i_out != nullptr) i_out[out_off] = best_index;
    });
  });
}

template <bool kMax>
void amin_amax_like(KernelContext& ctx, std::span<EValue*> args) {
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
      !check_nonempty_reduction(ctx, *self, plan, kMax ? "amax" : "amin") || out->numel() == 0) {
    return;
  }
  extreme<kMax>(*self, plan, out, nullptr, out->numel());
}

// argmin.out(self, int? dim=None, keepdim=False, *, out)
void argmin_out(KernelContext& ctx, std::span<EValue*> args) {
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
    ctx.fail(ErrorCode::InvalidType, "self has dtype bool, which argmin does not support");
    return;
  }
  std::span<const int64_t> dims;
  if (has_dim) dims = {&dim, 1};
  ReducePlan plan;
  if (!plan_reduction(ctx, *self, dims, keepdim, *out, &plan) ||
      !check_nonempty_reduction(ctx, *self, plan, "argmin") || out->numel() == 0) {
    return;
  }
  extreme<false>(*self, plan, nullptr, out, out->numel());
}

// max.dim_max / min.dim_min(self, int dim, bool keepdim=False, *, Tensor(a!) max,
// Tensor(b!) max_values) -> (values, indices): the second out holds int64 indices.
template <bool kMax>
void dim_extreme(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_outs(ctx, args, 5, 2)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  int64_t dim = 0;
  if (!int_arg(ctx, args, 1, "dim", &dim)) return;
  bool keepdim;
  if (!bool_arg(ctx, args, 2, "keepdim", &keepdim)) return;
  Tensor* values = tensor_arg(ctx, args, 3, kMax ? "max" : "min");
  if (values == nullptr) return;
  Tensor* indices = tensor_arg(ctx, args, 4, kMax ? "max_values" : "min_indices");
  if (indices == nullptr) return;
  if (!check_computed_dtype(ctx, *self, "self") ||
      !check_dtype_is(ctx, *values, kMax ? "max" : "min", self->dtype()) ||
      !check_dtype_is(ctx, *indices, "indices", ScalarType::Long)) {
    return;
  }
  ReducePlan plan;
  ReducePlan index_plan;
  const std::span<const int64_t> dims(&dim, 1);
  if (!plan_reduction(ctx, *self, dims, keepdim, *values, &plan) ||
      !plan_reduction(ctx, *self, dims, keepdim, *indices, &index_plan) ||
      !check_nonempty_reduction(ctx, *self, plan, kMax ? "max" : "min") ||
      values->numel() == 0) {
    return;
  }
  extreme<kMax>(*self, plan, values, nullptr, values->numel());
  extreme<kMax>(*self, index_plan, nullptr, indices, indices->numel());
}

// max.unary_out / min.unary_out(self, *, out): the extreme of all elements, a rank-0 out.
template <bool kMax>
void all_extreme(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 2)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 1, "out");
  if (out == nullptr) return;
  if (!check_computed_dtype(ctx, *self, "self") ||
      !check_dtype_is(ctx, *out, "out", self->dtype())) {
    return;
  }
  ReducePlan plan;
  if (!plan_reduction(ctx, *self, {}, false, *out, &plan) ||
      !check_nonempty_reduction(ctx, *self, plan, kMax ? "max" : "min")) {
    return;
  }
  extreme<kMax>(*self, plan, out, nullptr, 1);
}

}  // namespace

std::span<const KernelEntry> minmax_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::amin.out", via_float32<amin_amax_like<false>>, kArithmeticDtypes},
      {"aten::argmin.out", via_float32<argmin_out>, kNumericDtypes},
      {"aten::max.dim_max", via_float32<dim_extreme<true>>, kArithmeticDtypes},
      {"aten::max.unary_out", via_float32<all_extreme<true>>, kArithmeticDtypes},
      {"aten::min.dim_min", via_float32<dim_extreme<false>>, kArithmeticDtypes},
      {"aten::min.unary_out", via_float32<all_extreme<false>>, kArithmeticDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
