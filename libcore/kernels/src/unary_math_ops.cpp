// Floating unary math functions: sin, cos, tan, their inverses and hyperbolic forms, erf, expm1,
// log1p, log2, log10, reciprocal and logit.
//
// As PyTorch, any computed dtype is accepted as input (integers and bools are computed in the
// floating out's type) and the out must be floating. Each is the C library's function in the
// out's type, so NaN propagates and domain errors give NaN (asin(2), log2(-1)) or +-inf (atanh(1),
// log10(0)) exactly as IEEE prescribes.

#include <cmath>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "unary_util.h"

namespace etkit::kernels {
namespace {

#define ETKIT_FLOAT_UNARY(name, expr)                                  \
  void name##_out(KernelContext& ctx, std::span<EValue*> args) {       \
    floating_unary(ctx, args, [](auto x) { return expr; });            \
  }

ETKIT_FLOAT_UNARY(sin, std::sin(x))
ETKIT_FLOAT_UNARY(cos, std::cos(x))
ETKIT_FLOAT_UNARY(tan, std::tan(x))
ETKIT_FLOAT_UNARY(asin, std::asin(x))
ETKIT_FLOAT_UNARY(acos, std::acos(x))
ETKIT_FLOAT_UNARY(atan, std::atan(x))
ETKIT_FLOAT_UNARY(sinh, std::sinh(x))
ETKIT_FLOAT_UNARY(cosh, std::cosh(x))
ETKIT_FLOAT_UNARY(asinh, std::asinh(x))
ETKIT_FLOAT_UNARY(acosh, std::acosh(x))
ETKIT_FLOAT_UNARY(atanh, std::atanh(x))
ETKIT_FLOAT_UNARY(erf, std::erf(x))
ETKIT_FLOAT_UNARY(expm1, std::expm1(x))
ETKIT_FLOAT_UNARY(log1p, std::log1p(x))
ETKIT_FLOAT_UNARY(log2, std::log2(x))
ETKIT_FLOAT_UNARY(log10, std::log10(x))
ETKIT_FLOAT_UNARY(reciprocal, decltype(x)(1) / x)

#undef ETKIT_FLOAT_UNARY

// logit(self, float? eps=None): log(z / (1 - z)), z = self clamped to [eps, 1 - eps] when eps
// is given (NaN stays NaN through the clamp, as in PyTorch).
void logit_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  bool has_eps = false;
  double eps = 0.0;
  if (!args[1]->is_none()) {
    if (!args[1]->is_double() && !args[1]->is_int()) {
      ctx.fail(ErrorCode::InvalidType, "eps is %s, expected a float or none",
               value_kind(*args[1]));
      return;
    }
    has_eps = true;
    eps = args[1]->is_double() ? args[1]->to_double() : static_cast<double>(args[1]->to_int());
  }
  EValue* unary[3] = {args[0], args[2], args[3]};
  floating_unary(ctx, std::span<EValue*>(unary), [has_eps, eps](auto x) {
    using C = decltype(x);
    if (has_eps) {
      const C lo = static_cast<C>(eps);
      const C hi = static_cast<C>(1.0 - eps);
      x = x < lo ? lo : x > hi ? hi : x;
    }
    return std::log(x / (C(1) - x));
  });
}

}  // namespace

std::span<const KernelEntry> unary_math_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::acos.out", acos_out, kArithmeticDtypes},
      {"aten::acosh.out", acosh_out, kArithmeticDtypes},
      {"aten::asin.out", asin_out, kArithmeticDtypes},
      {"aten::asinh.out", asinh_out, kArithmeticDtypes},
      {"aten::atan.out", atan_out, kArithmeticDtypes},
      {"aten::atanh.out", atanh_out, kArithmeticDtypes},
      {"aten::cos.out", cos_out, kArithmeticDtypes},
      {"aten::cosh.out", cosh_out, kArithmeticDtypes},
      {"aten::erf.out", erf_out, kArithmeticDtypes},
      {"aten::expm1.out", expm1_out, kArithmeticDtypes},
      {"aten::log10.out", log10_out, kArithmeticDtypes},
      {"aten::log1p.out", log1p_out, kArithmeticDtypes},
      {"aten::log2.out", log2_out, kArithmeticDtypes},
      {"aten::logit.out", logit_out, kArithmeticDtypes},
      {"aten::reciprocal.out", reciprocal_out, kArithmeticDtypes},
      {"aten::sin.out", sin_out, kArithmeticDtypes},
      {"aten::sinh.out", sinh_out, kArithmeticDtypes},
      {"aten::tan.out", tan_out, kArithmeticDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
