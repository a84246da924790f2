// Selection: where (condition ? self : other, the three broadcast together) and masked_fill
// (value where a mask that broadcasts to self is set).
//
// where's out has PyTorch's result type of self and other; its condition is bool or, as
// ExecuTorch also accepts, uint8. masked_fill keeps self's shape and dtype; its mask is bool and
// its value must fit self's dtype (PyTorch refuses an overflowing fill).

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "pointwise_util.h"

namespace etkit::kernels {
namespace {

void where_self_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* cond = tensor_arg(ctx, args, 0, "condition");
  if (cond == nullptr) return;
  Tensor* self = tensor_arg(ctx, args, 1, "self");
  if (self == nullptr) return;
  Tensor* other = tensor_arg(ctx, args, 2, "other");
  if (other == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr) return;
  if (cond->dtype() != ScalarType::Bool && cond->dtype() != ScalarType::Byte) {
    ctx.fail(ErrorCode::InvalidType, "condition has dtype %s, expected bool (or uint8)",
             scalar_type_name(cond->dtype()));
    return;
  }
  ScalarType common;
  if (!pointwise::promote_tensors(ctx, *self, *other, *out, &common)) return;
  if (!pointwise::check_promoted_out(ctx, *out, common, "self and other")) return;
  Shape shape;
  if (!pointwise::broadcast_all<3>(ctx, {cond, self, other}, {"condition", "self", "other"},
                                   &shape)) {
    return;
  }
  if (!resize_out(ctx, *out, shape.span())) return;
  const std::array<Operand, 3> in = {broadcast_operand(*cond, out->sizes()),
                                     broadcast_operand(*self, out->sizes()),
                                     broadcast_operand(*other, out->sizes())};
  dispatch_compute(common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    pointwise::map_to<C, C, 3>(*out, in, [](C c, C a, C b) { return c != C(0) ? a : b; });
  });
}

void masked_fill_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* mask = tensor_arg(ctx, args, 1, "mask");
  if (mask == nullptr) return;
  Scalar value;
  if (!scalar_arg(ctx, args, 2, "value", &value)) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr) return;
  if (!check_arithmetic_dtype(ctx, *self, "self")) return;
  if (!check_dtype_is(ctx, *mask, "mask", ScalarType::Bool)) return;
  if (!check_dtype_is(ctx, *out, "out", self->dtype())) return;
  Shape shape;
  if (!broadcast_shapes(ctx, *self, "self", *mask, "mask", &shape)) return;
  bool same = shape.rank == self->dim();
  for (int d = 0; same && d < shape.rank; ++d) same = shape.sizes[d] == self->size(d);
  if (!same) {
    ctx.fail(ErrorCode::InvalidArgument, "mask has sizes %s, which do not broadcast to self's %s",
             SizesText(mask->sizes()).text, SizesText(self->sizes()).text);
    return;
  }
  if (!resize_out(ctx, *out, self->sizes())) return;
  const std::array<Operand, 2> in = {broadcast_operand(*self, out->sizes()),
                                     broadcast_operand(*mask, out->sizes())};
  if (!check_scalar_fits(ctx, value, out->dtype(), "value")) return;
  dispatch_compute(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    const C v = value.to<C>();
    pointwise::map_to<C, C, 2>(*out, in, [v](C x, C m) { return m != C(0) ? v : x; });
  });
}

}  // namespace

std::span<const KernelEntry> where_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::masked_fill.Scalar_out", masked_fill_scalar_out, kArithmeticDtypes},
      {"aten::where.self_out", where_self_out, kArithmeticDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
