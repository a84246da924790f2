// Binary math: maximum, minimum, fmod, remainder (tensor and scalar overloads) and atan2.
//
// maximum/minimum/fmod/remainder write the promoted dtype of the inputs (out must have it);
// maximum and minimum propagate NaN (either input NaN gives NaN, unlike fmax). fmod's result has
// the dividend's sign (C's fmod / %); remainder's the divisor's (Python's %). Integer fmod and
// remainder by zero fail, as PyTorch raises. atan2 computes integers in float32 and writes any
// floating out.

#include <cmath>
#include <type_traits>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "pointwise_util.h"
#include "scalar_tensor.h"

namespace etkit::kernels {
namespace {

enum class Op2 { Max, Min, Fmod, Remainder };

// fmod of two floats without libm's loop over the exponent difference (25x an add on 1M
// elements): in double, a - trunc(a / b) * b is exact while |a / b| < 2^28. The quotient of two
// floats is either an integer or at least 2^-24 from one, more than double's rounding error of
// it there, so the truncation is right; trunc(a / b) * b fits 52 bits; and the remainder, a
// float, is representable. Its sign is a's, zero included. Anything else (b zero or infinite,
// NaN, an infinite a, huge quotients) goes to std::fmod.
inline float fmod_float(float a, float b) {
  const double x = a;
  const double y = b;
  const double q = x / y;
  // An infinite b gives q = 0 and 0 * inf = NaN below: libm's a is right.
  if (!(std::fabs(q) < 268435456.0) || !(std::fabs(y) <= 3.4028234663852886e38)) {
    return std::fmod(a, b);
  }
  const double r = x - static_cast<double>(static_cast<int32_t>(q)) * y;
  return std::copysign(static_cast<float>(r), a);
}

template <Op2 kOp, typename C>
C apply(C a, C b) {
  if constexpr (kOp == Op2::Max || kOp == Op2::Min) {
    if constexpr (std::is_floating_point_v<C>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    if constexpr (kOp == Op2::Max) return a < b ? b : a;
    return b < a ? b : a;
  } else if constexpr (std::is_floating_point_v<C>) {
    C m;
    if constexpr (std::is_same_v<C, float>) {
      m = fmod_float(a, b);
    } else {
      m = std::fmod(a, b);
    }
    if constexpr (kOp == Op2::Remainder) {
      if (m != C(0) && ((b < C(0)) != (m < C(0)))) m += b;
    }
    return m;
  } else if constexpr (std::is_same_v<C, bool>) {
    return a;  // not reached: bool fmod/remainder is refused
  } else {
    // b != 0 was checked; x % -1 is 0 (and INT_MIN % -1 would trap).
    if constexpr (std::is_signed_v<C>) {
      if (b == C(-1)) return C(0);
    }
    C m = static_cast<C>(a % b);
    if constexpr (kOp == Op2::Remainder) {
      if (m != C(0) && ((b < C(0)) != (m < C(0)))) m = static_cast<C>(m + b);
    }
    return m;
  }
}

bool has_zero_element(const Tensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (load_as<int64_t>(t.data(), t.dtype(), i) == 0) return true;
  }
  return false;
}

template <Op2 kOp>
void binary_math(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* other = tensor_arg(ctx, args, 1, "other");
  if (other == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  ScalarType common;
  if (!pointwise::promote_tensors(ctx, *self, *other, *out, &common)) return;
  constexpr bool kDivides = kOp == Op2::Fmod || kOp == Op2::Remainder;
  if (kDivides && common == ScalarType::Bool) {
    ctx.fail(ErrorCode::InvalidType, "self and other have dtype bool, which %s does not support",
             kOp == Op2::Fmod ? "fmod" : "remainder");
    return;
  }
  if (kDivides && !is_floating_type(common) && has_zero_element(*other)) {
    ctx.fail(ErrorCode::InvalidArgument, "other has a zero element: integer %s by zero",
             kOp == Op2::Fmod ? "fmod" : "remainder");
    return;
  }
  if (!pointwise::check_promoted_out(ctx, *out, common, "self and other")) return;
  Shape shape;
  if (!broadcast_shapes(ctx, *self, "self", *other, "other", &shape)) return;
  if (!resize_out(ctx, *out, shape.span())) return;
  const std::array<Operand, 2> in = {broadcast_operand(*self, out->sizes()),
                                     broadcast_operand(*other, out->sizes())};
  dispatch_compute(common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    elementwise<C, 2>(*out, in, [](C a, C b) { return apply<kOp>(a, b); });
  });
}

template <Op2 kOp>
void binary_math_scalar(KernelContext& ctx, std::span<EValue*> args) {
  run_with_scalar_tensor(ctx, args, 1, 3, "other", binary_math<kOp>);
}

void atan2_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* other = tensor_arg(ctx, args, 1, "other");
  if (other == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  ScalarType common;
  if (!pointwise::promote_tensors(ctx, *self, *other, *out, &common)) return;
  if (!is_floating_type(common)) common = ScalarType::Float;
  if (!pointwise::check_floating_out(ctx, *out)) return;
  Shape shape;
  if (!broadcast_shapes(ctx, *self, "self", *other, "other", &shape)) return;
  if (!resize_out(ctx, *out, shape.span())) return;
  const std::array<Operand, 2> in = {broadcast_operand(*self, out->sizes()),
                                     broadcast_operand(*other, out->sizes())};
  pointwise::dispatch_pair(out->dtype(), common, [&](auto out_tag, auto compute_tag) {
    using O = typename decltype(out_tag)::type;
    using C = typename decltype(compute_tag)::type;
    if constexpr (std::is_floating_point_v<C> && std::is_floating_point_v<O>) {
      pointwise::map_to<O, C, 2>(*out, in, [](C y, C x) { return std::atan2(y, x); });
    }
  });
}

}  // namespace

std::span<const KernelEntry> binary_math_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::atan2.out", atan2_out, kArithmeticDtypes},
      {"aten::fmod.Scalar_out", binary_math_scalar<Op2::Fmod>, kNumericDtypes},
      {"aten::fmod.Tensor_out", binary_math<Op2::Fmod>, kNumericDtypes},
      {"aten::maximum.out", binary_math<Op2::Max>, kArithmeticDtypes},
      {"aten::minimum.out", binary_math<Op2::Min>, kArithmeticDtypes},
      {"aten::remainder.Scalar_out", binary_math_scalar<Op2::Remainder>, kNumericDtypes},
      {"aten::remainder.Tensor_out", binary_math<Op2::Remainder>, kNumericDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
