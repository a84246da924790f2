// clamp with scalar bounds (clamp.out) and with tensor bounds (clamp.Tensor_out, broadcast).
//
// PyTorch semantics: the compute dtype is the result type of self and the given bounds; the out
// may be any dtype that result can be cast to. out = min(max(self, min), max), so when min > max
// every element becomes max. NaN propagates: a NaN element or a NaN bound gives NaN. At least
// one bound must be given. A missing tensor bound is the dtype's extreme (a no-op).

#include <cmath>
#include <limits>
#include <type_traits>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "pointwise_util.h"

namespace etkit::kernels {
namespace {

// With bounds known not to be NaN: a NaN x fails both comparisons and passes through, and the
// loop has no NaN branch (it vectorizes like hardtanh's).
template <typename C>
inline C clamp_number(C x, C lo, C hi) {
  const C low = x < lo ? lo : x;
  return low > hi ? hi : low;
}

template <typename C>
inline C clamp_value(C x, C lo, C hi) {
  if constexpr (std::is_floating_point_v<C>) {
    if (x != x || lo != lo || hi != hi) return std::numeric_limits<C>::quiet_NaN();
  }
  const C low = x < lo ? lo : x;
  return low > hi ? hi : low;
}

template <typename C>
constexpr C lowest() {
  if constexpr (std::is_floating_point_v<C>) return -std::numeric_limits<C>::infinity();
  return std::numeric_limits<C>::lowest();
}
template <typename C>
constexpr C highest() {
  if constexpr (std::is_floating_point_v<C>) return std::numeric_limits<C>::infinity();
  return std::numeric_limits<C>::max();
}

bool check_cast_out(KernelContext& ctx, const Tensor& out, ScalarType common) {
  if (!pointwise::can_cast(common, out.dtype())) {
    ctx.fail(ErrorCode::InvalidType, "out has dtype %s, which the result dtype %s cannot be cast to",
             scalar_type_name(out.dtype()), scalar_type_name(common));
    return false;
  }
  return true;
}

// clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out)
void clamp_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  const bool has_lo = !args[1]->is_none();
  const bool has_hi = !args[2]->is_none();
  Scalar lo;
  Scalar hi;
  if (has_lo && !scalar_arg(ctx, args, 1, "min", &lo)) return;
  if (has_hi && !scalar_arg(ctx, args, 2, "max", &hi)) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr) return;
  if (!has_lo && !has_hi) {
    ctx.fail(ErrorCode::InvalidArgument, "min and max are both none; clamp needs at least one");
    return;
  }
  if (!check_arithmetic_dtype(ctx, *self, "self") || !check_arithmetic_dtype(ctx, *out, "out")) return;
  if (self->dtype() == ScalarType::Bool) {
    ctx.fail(ErrorCode::InvalidType, "self has dtype bool, which clamp does not support");
    return;
  }
  ResultType rt;
  rt.add_tensor(*self);
  if (has_lo) rt.add_scalar(lo);
  if (has_hi) rt.add_scalar(hi);
  ScalarType common;
  if (!pointwise::result_dtype(ctx, rt, "self and the bounds", &common)) return;
  if (!check_cast_out(ctx, *out, common)) return;
  if ((has_lo && !check_scalar_fits(ctx, lo, common, "min")) ||
      (has_hi && !check_scalar_fits(ctx, hi, common, "max"))) {
    return;
  }
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  pointwise::dispatch_pair(out->dtype(), common, [&](auto out_tag, auto compute_tag) {
    using O = typename decltype(out_tag)::type;
    using C = typename decltype(compute_tag)::type;
    if constexpr (!std::is_same_v<C, bool>) {
      const C l = has_lo ? lo.to<C>() : lowest<C>();
      const C h = has_hi ? hi.to<C>() : highest<C>();
      if (l != l || h != h) {  // a NaN bound makes every element NaN
        pointwise::map_to<O, C, 1>(*out, {in}, [l, h](C x) { return clamp_value(x, l, h); });
      } else {
        pointwise::map_to<O, C, 1>(*out, {in}, [l, h](C x) { return clamp_number(x, l, h); });
      }
    }
  });
}

// clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out)
void clamp_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* lo = nullptr;
  Tensor* hi = nullptr;
  if (!args[1]->is_none() && (lo = tensor_arg(ctx, args, 1, "min")) == nullptr) return;
  if (!args[2]->is_none() && (hi = tensor_arg(ctx, args, 2, "max")) == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr) return;
  if (lo == nullptr && hi == nullptr) {
    ctx.fail(ErrorCode::InvalidArgument, "min and max are both none; clamp needs at least one");
    return;
  }
  if (!check_arithmetic_dtype(ctx, *self, "self") || !check_arithmetic_dtype(ctx, *out, "out") ||
      (lo != nullptr && !check_arithmetic_dtype(ctx, *lo, "min")) ||
      (hi != nullptr && !check_arithmetic_dtype(ctx, *hi, "max"))) {
    return;
  }
  ResultType rt;
  rt.add_tensor(*self);
  if (lo != nullptr) rt.add_tensor(*lo);
  if (hi != nullptr) rt.add_tensor(*hi);
  ScalarType common;
  if (!pointwise::result_dtype(ctx, rt, "self and the bounds", &common)) return;
  if (common == ScalarType::Bool) {
    ctx.fail(ErrorCode::InvalidType, "self and the bounds have dtype bool, which clamp does not "
             "support");
    return;
  }
  if (!check_cast_out(ctx, *out, common)) return;
  // A missing bound stands in as self (broadcasts trivially) and is ignored in the op.
  const Tensor& l = lo != nullptr ? *lo : *self;
  const Tensor& h = hi != nullptr ? *hi : *self;
  Shape shape;
  if (!pointwise::broadcast_all<3>(ctx, {self, &l, &h}, {"self", "min", "max"}, &shape)) return;
  if (!resize_out(ctx, *out, shape.span())) return;
  const std::array<Operand, 3> in = {broadcast_operand(*self, out->sizes()),
                                     broadcast_operand(l, out->sizes()),
                                     broadcast_operand(h, out->sizes())};
  const bool has_lo = lo != nullptr;
  const bool has_hi = hi != nullptr;
  pointwise::dispatch_pair(out->dtype(), common, [&](auto out_tag, auto compute_tag) {
    using O = typename decltype(out_tag)::type;
    using C = typename decltype(compute_tag)::type;
    if constexpr (!std::is_same_v<C, bool>) {
      pointwise::map_to<O, C, 3>(*out, in, [has_lo, has_hi](C x, C a, C b) {
        return clamp_value(x, has_lo ? a : lowest<C>(), has_hi ? b : highest<C>());
      });
    }
  });
}

}  // namespace

std::span<const KernelEntry> clamp_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::clamp.Tensor_out", clamp_tensor_out, kNumericDtypes},
      {"aten::clamp.out", clamp_out, kNumericDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
