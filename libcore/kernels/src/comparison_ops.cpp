// Comparisons: eq, lt, gt of a tensor with a scalar or with another tensor (broadcast).
//
// Both sides are compared in PyTorch's result type of the inputs (a float scalar against an
// integer tensor compares in float32). The out may have any computed dtype, as PyTorch allows;
// it receives 0 or 1. An integer scalar that the integer compute type cannot hold is compared in
// int64 instead of being wrapped, so `int8 == 300` is false everywhere.

#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "pointwise_util.h"

namespace etkit::kernels {
namespace {

enum class Cmp { Eq, Lt, Gt };

template <typename C>
inline bool compare(Cmp cmp, C a, C b) {
  switch (cmp) {
    case Cmp::Eq: return a == b;
    case Cmp::Lt: return a < b;
    case Cmp::Gt: return a > b;
  }
  return false;
}

// Runs the comparison with `cmp` a compile-time constant, so that each loop has no switch.
template <typename F>
void with_cmp(Cmp cmp, F&& f) {
  switch (cmp) {
    case Cmp::Eq: f(std::integral_constant<Cmp, Cmp::Eq>{}); break;
    case Cmp::Lt: f(std::integral_constant<Cmp, Cmp::Lt>{}); break;
    case Cmp::Gt: f(std::integral_constant<Cmp, Cmp::Gt>{}); break;
  }
}

void compare_scalar(KernelContext& ctx, std::span<EValue*> args, Cmp cmp) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Scalar other;
  if (!scalar_arg(ctx, args, 1, "other", &other)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  if (!check_computed_dtype(ctx, *self, "self") || !check_computed_dtype(ctx, *out, "out")) return;
  ResultType rt;
  rt.add_tensor(*self);
  rt.add_scalar(other);
  ScalarType compute;
  if (!pointwise::result_dtype(ctx, rt, "self and other", &compute)) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_dtype(compute, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (kIsWrapInt<C> && !std::is_same_v<C, int64_t>) {
      if (!scalar_fits<C>(other)) compute = ScalarType::Long;
    }
  });
  pointwise::dispatch_pair(out->dtype(), compute, [&](auto out_tag, auto compute_tag) {
    using O = typename decltype(out_tag)::type;
    using C = typename decltype(compute_tag)::type;
    const C s = other.to<C>();
    with_cmp(cmp, [&](auto k) {
      pointwise::map_to<O, C, 1>(*out, {in}, [s](C x) { return compare(decltype(k)::value, x, s); });
    });
  });
}

void compare_tensor(KernelContext& ctx, std::span<EValue*> args, Cmp cmp) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* other = tensor_arg(ctx, args, 1, "other");
  if (other == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  ScalarType compute;
  if (!pointwise::promote_tensors(ctx, *self, *other, *out, &compute)) return;
  Shape shape;
  if (!broadcast_shapes(ctx, *self, "self", *other, "other", &shape)) return;
  if (!resize_out(ctx, *out, shape.span())) return;
  const std::array<Operand, 2> in = {broadcast_operand(*self, out->sizes()),
                                     broadcast_operand(*other, out->sizes())};
  pointwise::dispatch_pair(out->dtype(), compute, [&](auto out_tag, auto compute_tag) {
    using O = typename decltype(out_tag)::type;
    using C = typename decltype(compute_tag)::type;
    with_cmp(cmp, [&](auto k) {
      pointwise::map_to<O, C, 2>(*out, in,
                                 [](C x, C y) { return compare(decltype(k)::value, x, y); });
    });
  });
}

void eq_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_scalar(ctx, args, Cmp::Eq);
}
void lt_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_scalar(ctx, args, Cmp::Lt);
}
void gt_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_scalar(ctx, args, Cmp::Gt);
}
void eq_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_tensor(ctx, args, Cmp::Eq);
}
void lt_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_tensor(ctx, args, Cmp::Lt);
}
void gt_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_tensor(ctx, args, Cmp::Gt);
}

}  // namespace

std::span<const KernelEntry> comparison_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::eq.Scalar_out", eq_scalar_out},
      {"aten::eq.Tensor_out", eq_tensor_out},
      {"aten::gt.Scalar_out", gt_scalar_out},
      {"aten::gt.Tensor_out", gt_tensor_out},
      {"aten::lt.Scalar_out", lt_scalar_out},
      {"aten::lt.Tensor_out", lt_tensor_out},
  };
  return kTable;
}

}  // namespace etkit::kernels
