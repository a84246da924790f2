// Unary elementwise kernels: neg (keeps the dtype); tanh, exp, log, sqrt, rsqrt (any computed
// dtype in, floating result, as PyTorch computes integers in a floating type); logical_not (any
// dtype in and out, 0/1 values).

#include <cmath>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/fast_math.h"
#include "float_loops.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "pointwise_util.h"
#include "unary_util.h"

namespace etkit::kernels {
namespace {

// Float takes fast_exp, whose loop vectorizes (libm's expf is a call per element; the contiguous
// float loop is float_loops.h's, built for AVX2+FMA too); double keeps std::exp. A function object rather than a lambda so that it can be always_inline: GCC's
// inliner otherwise leaves the call in the loop (elementwise instantiates op's call four times).
struct Exp {
  template <typename T>
  [[gnu::always_inline]] T operator()(T x) const {
    return exp_of(x);
  }
};

void exp_out(KernelContext& ctx, std::span<EValue*> args) {
  floating_unary(ctx, args, Exp{}, float_loops().exp);
}

void log_out(KernelContext& ctx, std::span<EValue*> args) {
  floating_unary(ctx, args, [](auto x) { return std::log(x); });
}

void sqrt_out(KernelContext& ctx, std::span<EValue*> args) {
  floating_unary(ctx, args, [](auto x) { return std::sqrt(x); });
}

void rsqrt_out(KernelContext& ctx, std::span<EValue*> args) {
  floating_unary(ctx, args, [](auto x) { return decltype(x)(1) / std::sqrt(x); });
}

// PyTorch lets logical_not write any dtype: 1 where self is zero, else 0.
void logical_not_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!unary_args(ctx, args, &self, &out)) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  pointwise::dispatch_pair(out->dtype(), self->dtype(), [&](auto out_tag, auto self_tag) {
    using O = typename decltype(out_tag)::type;
    using S = typename decltype(self_tag)::type;
    pointwise::map_to<O, S, 1>(*out, {in}, [](S x) { return x == S(0); });
  });
}

}  // namespace

void neg_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!unary_args(ctx, args, &self, &out)) return;
  if (self->dtype() == ScalarType::Bool) {
    ctx.fail(ErrorCode::InvalidType,
             "self has dtype bool; negation of a bool tensor is not supported (use logical_not)");
    return;
  }
  if (!check_dtype_is(ctx, *out, "out", self->dtype())) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_compute(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<C, bool>) {
      elementwise<C, 1>(*out, {in}, [](C x) { return sub_wrap(C(0), x); });
    }
  });
}

void tanh_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!unary_args(ctx, args, &self, &out)) return;
  // PyTorch computes tanh of integers and bools in the default float dtype; any floating out
  // can hold that, so (as ExecuTorch) the out dtype only has to be floating.
  if (!is_floating_type(out->dtype())) {
    ctx.fail(ErrorCode::InvalidType, "out has dtype %s, expected a floating type",
             scalar_type_name(out->dtype()));
    return;
  }
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_compute(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      elementwise<C, 1>(*out, {in}, [](C x) { return std::tanh(x); });
    }
  });
}

std::span<const KernelEntry> unary_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::exp.out", exp_out, kArithmeticDtypes},
      {"aten::log.out", log_out, kArithmeticDtypes},
      {"aten::logical_not.out", logical_not_out, kArithmeticDtypes},
      {"aten::neg.out", neg_out, kNumericDtypes},
      {"aten::rsqrt.out", rsqrt_out, kArithmeticDtypes},
      {"aten::sqrt.out", sqrt_out, kArithmeticDtypes},
      {"aten::tanh.out", tanh_out, kArithmeticDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
