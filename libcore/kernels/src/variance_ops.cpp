// Variance: var.out (unbiased flag), var.correction_out and var_mean.correction_out.
//
// Two passes in double per output element (the mean, then the sum of squared deviations), so a
// large offset does not cancel the result; over a contiguous run (the last dim) each pass keeps
// independent partial sums (nn::sum_as), so it vectorizes. The divisor is max(0, N - correction),
// as in PyTorch: N <= correction gives inf (or NaN when every deviation is zero, and for N = 0).
// Floating self only; outs have floating dtypes.

#include <cstdint>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "nn_util.h"
#include "reduce_util.h"

namespace etkit::kernels {
namespace {

bool check_floating(KernelContext& ctx, const Tensor& t, const char* name) {
  if (!is_floating_type(t.dtype()) || !is_computed_dtype(t.dtype())) {
    ctx.fail(ErrorCode::InvalidType, "%s has dtype %s, expected a floating dtype", name,
             scalar_type_name(t.dtype()));
    return false;
  }
  return true;
}

// Writes the variance of each output element into `var` and, if given, the mean into `mean`
// (planned separately: the two outs may differ in dim order).
void variance(KernelContext& ctx, const Tensor& self, std::span<const int64_t> dims,
              bool keepdim, double correction, Tensor& var, Tensor* mean) {
  if (!check_floating(ctx, self, "self") || !check_floating(ctx, var, "out")) return;
  if (mean != nullptr && !check_floating(ctx, *mean, "mean")) return;
  ReducePlan plan;
  if (!plan_reduction(ctx, self, dims, keepdim, var, &plan)) return;
  ReducePlan mean_plan;
  if (mean != nullptr && !plan_reduction(ctx, self, dims, keepdim, *mean, &mean_plan)) return;
  if (var.numel() == 0) return;
  const double n = static_cast<double>(plan.red_numel);
  const double divisor = n - correction > 0.0 ? n - correction : 0.0;
  const void* in = self.data();
  const ScalarType t = self.dtype();
  // One contiguous run of float32 or float64 per output: the vectorized sums.
  auto contiguous = [&](const ReducePlan& p) {
    return p.num_reduced == 1 && p.red_in_stride[0] == 1 &&
           (t == ScalarType::Float || t == ScalarType::Double);
  };
  auto sum_at = [&](const ReducePlan& p, int64_t base) {
    if (contiguous(p)) {
      return t == ScalarType::Float
                 ? nn::sum_as<double>(static_cast<const float*>(in) + base, p.red_numel)
                 : nn::sum_as<double>(static_cast<const double*>(in) + base, p.red_numel);
    }
    double sum = 0.0;
    for_each_reduced(p, base, [&](int64_t off) { sum += load_as<double>(in, t, off); });
    return sum;
  };
  auto mean_at = [&](const ReducePlan& p, int64_t base) { return sum_at(p, base) / n; };
  dispatch_dtype(var.dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      C* o = var.data_as<C>();
      for_each_output(plan, var.numel(), [&](int64_t base, int64_t out_off) {
        const double m = mean_at(plan, base);
        double ss = 0.0;
        if (contiguous(plan)) {
          ss = t == ScalarType::Float
                   ? nn::squared_deviations_as<double>(static_cast<const float*>(in) + base,
                                                   plan.red_numel, m)
                   : nn::squared_deviations_as<double>(static_cast<const double*>(in) + base,
                                                   plan.red_numel, m);
        } else {
          for_each_reduced(plan, base, [&](int64_t off) {
            const double d = load_as<double>(in, t, off) - m;
            ss += d * d;
          });
        }
        o[out_off] = static_cast<C>(ss / divisor);
      });
    }
  });
  if (mean == nullptr) return;
  dispatch_dtype(mean->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      C* o = mean->data_as<C>();
      for_each_output(mean_plan, mean->numel(), [&](int64_t base, int64_t out_off) {
        o[out_off] = static_cast<C>(mean_at(mean_plan, base));
      });
    }
  });
}

// A `Scalar? correction`: None means 1 (Bessel's correction).
bool correction_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, double* out) {
  *out = 1.0;
  if (args[i]->is_none()) return true;
  Scalar s;
  if (!scalar_arg(ctx, args, i, "correction", &s)) return false;
  *out = s.to<double>();
  return true;
}

// var.out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *, Tensor(a!) out)
void var_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 5)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool present = false;
  std::span<const int64_t> dims;
  if (!int_list_arg(ctx, args, 1, "dim", true, &present, &dims)) return;
  bool unbiased = true;
  bool keepdim = false;
  if (!bool_arg(ctx, args, 2, "unbiased", &unbiased) ||
      !bool_arg(ctx, args, 3, "keepdim", &keepdim)) {
    return;
  }
  Tensor* out = tensor_arg(ctx, args, 4, "out");
  if (out == nullptr) return;
  variance(ctx, *self, dims, keepdim, unbiased ? 1.0 : 0.0, *out, nullptr);
}

// var.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
//   bool keepdim=False, Tensor(a!) out)
void var_correction_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 5)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool present = false;
  std::span<const int64_t> dims;
  if (!int_list_arg(ctx, args, 1, "dim", true, &present, &dims)) return;
  double correction = 1.0;
  if (!correction_arg(ctx, args, 2, &correction)) return;
  bool keepdim = false;
  if (!bool_arg(ctx, args, 3, "keepdim", &keepdim)) return;
  Tensor* out = tensor_arg(ctx, args, 4, "out");
  if (out == nullptr) return;
  variance(ctx, *self, dims, keepdim, correction, *out, nullptr);
}

// var_mean.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
//   bool keepdim=False, Tensor(a!) out0, Tensor(b!) out1) -> (variance, mean)
void var_mean_correction_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_outs(ctx, args, 6, 2)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool present = false;
  std::span<const int64_t> dims;
  if (!int_list_arg(ctx, args, 1, "dim", true, &present, &dims)) return;
  double correction = 1.0;
  if (!correction_arg(ctx, args, 2, &correction)) return;
  bool keepdim = false;
  if (!bool_arg(ctx, args, 3, "keepdim", &keepdim)) return;
  Tensor* out0 = tensor_arg(ctx, args, 4, "out0");
  if (out0 == nullptr) return;
  Tensor* out1 = tensor_arg(ctx, args, 5, "out1");
  if (out1 == nullptr) return;
  variance(ctx, *self, dims, keepdim, correction, *out0, out1);
}

}  // namespace

std::span<const KernelEntry> variance_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::var.correction_out", via_float32<var_correction_out>, kFloatingDtypes},
      {"aten::var.out", via_float32<var_out>, kFloatingDtypes},
      {"aten::var_mean.correction_out", via_float32<var_mean_correction_out>, kFloatingDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
