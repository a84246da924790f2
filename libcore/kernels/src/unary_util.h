#pragma once

// The shared prelude and loop of the unary elementwise kernels (unary_ops.cpp,
// unary_math_ops.cpp, rounding_ops.cpp): argument unpacking and the floating-result loop.

#include <span>
#include <type_traits>

#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/kernel_util.h"
#include "pointwise_util.h"

namespace etkit::kernels {

// Unpacks (self, *, out) and checks both have arithmetic dtypes (Half and BFloat16 compute in
// float32 and round on store: elementwise.h).
inline bool unary_args(KernelContext& ctx, std::span<EValue*> args, Tensor** self, Tensor** out) {
  if (!check_num_args(ctx, args, 2)) return false;
  *self = tensor_arg(ctx, args, 0, "self");
  if (*self == nullptr) return false;
  *out = tensor_arg(ctx, args, 1, "out");
  if (*out == nullptr) return false;
  return check_arithmetic_dtype(ctx, **self, "self") && check_arithmetic_dtype(ctx, **out, "out");
}

// out = op(self) for a floating out of any floating dtype; self may be of any computed dtype and
// is converted to out's as it is read. `op` goes to the loop as it is (a generic callable), so an
// always_inline operator() stays inline in the loop body. `float_linear`, if given, runs the
// contiguous float32 case (elementwise's `linear`).
template <typename Op>
void floating_unary(KernelContext& ctx, std::span<EValue*> args, Op op,
                    LinearLoop<float> float_linear = nullptr) {
  Tensor* self;
  Tensor* out;
  if (!unary_args(ctx, args, &self, &out)) return;
  if (!pointwise::check_floating_out(ctx, *out)) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_compute(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_same_v<C, float>) {
      elementwise<C, 1>(*out, {in}, op, float_linear, ctx.parallel());
    } else if constexpr (std::is_floating_point_v<C>) {
      elementwise<C, 1>(*out, {in}, op, nullptr, ctx.parallel());
    }
  });
}

}  // namespace etkit::kernels
