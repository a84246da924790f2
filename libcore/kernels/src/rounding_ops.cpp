// Unary kernels whose result keeps the input's dtype: abs, sign, ceil, floor, round, trunc and
// bitwise_not; and the floating classifiers isnan and isinf (a bool out).
//
// PyTorch semantics: ceil/floor/round/trunc of an integer tensor are the identity; round is
// half-to-even (round(2.5) = 2, as torch.round with decimals=0); abs of the most negative integer
// wraps to itself; sign gives -1, 0 or 1 and keeps NaN; bitwise_not takes integers and bools only
// (on bool it is logical not). None of these accepts a bool except abs, sign and bitwise_not.

#include <cmath>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float_loops.h"
#include "kernels.h"
#include "round_math.h"
#include "unary_util.h"

namespace etkit::kernels {
namespace {

enum class Accept { AnyButBool, Any, IntegralOrBool };

// out = op(self), out of self's dtype.
template <typename Op>
void same_dtype_unary(KernelContext& ctx, std::span<EValue*> args, const char* op_name,
                      Accept accept, Op op, LinearLoop<float> float_linear = nullptr) {
  Tensor* self;
  Tensor* out;
  if (!unary_args(ctx, args, &self, &out)) return;
  const ScalarType t = self->dtype();
  if (accept == Accept::AnyButBool && t == ScalarType::Bool) {
    ctx.fail(ErrorCode::InvalidType, "self has dtype bool; %s of a bool tensor is not supported",
             op_name);
    return;
  }
  if (accept == Accept::IntegralOrBool && !is_integral_type(t, true)) {
    ctx.fail(ErrorCode::InvalidType, "self has dtype %s; %s needs an integer or bool tensor",
             scalar_type_name(t), op_name);
    return;
  }
  if (!check_dtype_is(ctx, *out, "out", t)) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_compute(t, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_same_v<C, float>) {
      elementwise<C, 1>(*out, {in}, [op](C x) { return op(x); }, float_linear);
    } else {
      elementwise<C, 1>(*out, {in}, [op](C x) { return op(x); });
    }
  });
}

template <typename C>
inline C abs_of(C x) {
  if constexpr (std::is_same_v<C, bool>) {
    return x;
  } else if constexpr (std::is_floating_point_v<C>) {
    return std::fabs(x);
  } else if constexpr (std::is_signed_v<C>) {
    return x < 0 ? sub_wrap(C(0), x) : x;
  } else {
    return x;
  }
}

template <typename C>
inline C sign_of(C x) {
  if constexpr (std::is_same_v<C, bool>) {
    return x;
  } else if constexpr (std::is_floating_point_v<C>) {
    if (x != x) return x;
    return static_cast<C>((C(0) < x) - (x < C(0)));
  } else {
    return static_cast<C>((C(0) < x) - (x < C(0)));
  }
}

// The floating function `f` for floats; integers are their own ceil/floor/round/trunc.
template <typename F>
struct Rounding {
  F f;
  // always_inline, as fast_math.h's functions: otherwise GCC leaves a call in elementwise's loop.
  template <typename C>
  [[gnu::always_inline]] C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      return f(x);
    } else {
      return x;
    }
  }
};
template <typename F>
Rounding(F) -> Rounding<F>;

void abs_out(KernelContext& ctx, std::span<EValue*> args) {
  same_dtype_unary(ctx, args, "abs", Accept::Any, [](auto x) { return abs_of(x); });
}
void sign_out(KernelContext& ctx, std::span<EValue*> args) {
  same_dtype_unary(ctx, args, "sign", Accept::Any, [](auto x) { return sign_of(x); });
}
void ceil_out(KernelContext& ctx, std::span<EValue*> args) {
  same_dtype_unary(ctx, args, "ceil", Accept::AnyButBool,
                   Rounding{[](auto x) { return ceil_of(x); }}, float_loops().ceil);
}
void floor_out(KernelContext& ctx, std::span<EValue*> args) {
  same_dtype_unary(ctx, args, "floor", Accept::AnyButBool,
                   Rounding{[](auto x) { return floor_of(x); }}, float_loops().floor);
}
void round_out(KernelContext& ctx, std::span<EValue*> args) {
  // Half to even in the default rounding mode (etkit never changes it).
  same_dtype_unary(ctx, args, "round", Accept::AnyButBool,
                   Rounding{[](auto x) { return round_of(x); }}, float_loops().round);
}
void trunc_out(KernelContext& ctx, std::span<EValue*> args) {
  same_dtype_unary(ctx, args, "trunc", Accept::AnyButBool,
                   Rounding{[](auto x) { return trunc_of(x); }}, float_loops().trunc);
}
void bitwise_not_out(KernelContext& ctx, std::span<EValue*> args) {
  same_dtype_unary(ctx, args, "bitwise_not", Accept::IntegralOrBool, [](auto x) {
    using C = decltype(x);
    if constexpr (std::is_same_v<C, bool>) {
      return !x;
    } else if constexpr (std::is_integral_v<C>) {
      return static_cast<C>(~x);
    } else {
      return x;  // not reached: floats are refused before the loop
    }
  });
}

// out (any computed dtype, 0/1) = pred(self); integers and bools are never NaN or infinite.
template <typename Pred>
void classify(KernelContext& ctx, std::span<EValue*> args, Pred pred) {
  Tensor* self;
  Tensor* out;
  if (!unary_args(ctx, args, &self, &out)) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  pointwise::dispatch_pair(out->dtype(), self->dtype(), [&](auto out_tag, auto self_tag) {
    using O = typename decltype(out_tag)::type;
    using S = typename decltype(self_tag)::type;
    pointwise::map_to<O, S, 1>(*out, {in}, [pred](S x) {
      if constexpr (std::is_floating_point_v<S>) {
        return pred(x);
      } else {
        static_cast<void>(pred);
        return false;
      }
    });
  });
}

void isnan_out(KernelContext& ctx, std::span<EValue*> args) {
  classify(ctx, args, [](auto x) { return x != x; });
}
void isinf_out(KernelContext& ctx, std::span<EValue*> args) {
  classify(ctx, args, [](auto x) { return std::isinf(x); });
}

}  // namespace

std::span<const KernelEntry> rounding_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::abs.out", abs_out, kArithmeticDtypes},
      {"aten::bitwise_not.out", bitwise_not_out, kIntegerOrBoolDtypes},
      {"aten::ceil.out", ceil_out, kNumericDtypes},
      {"aten::floor.out", floor_out, kNumericDtypes},
      {"aten::isinf.out", isinf_out, kArithmeticDtypes},
      {"aten::isnan.out", isnan_out, kArithmeticDtypes},
      {"aten::round.out", round_out, kNumericDtypes},
      {"aten::sign.out", sign_out, kArithmeticDtypes},
      {"aten::trunc.out", trunc_out, kNumericDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
