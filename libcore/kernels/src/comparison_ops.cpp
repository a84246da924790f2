// Comparisons: eq, ne, lt, le, gt, ge of a tensor with a scalar or with another tensor (broadcast).
//
// Both sides are compared in PyTorch's result type of the inputs (a float scalar against an
// integer tensor compares in float32). The out may have any computed dtype, as PyTorch allows;
// it receives 0 or 1. The loops write bool only: an out of another dtype receives the bytes in its
// own memory, widened in place afterwards (so each comparison is instantiated once per compute
// dtype, not once per (out, compute) pair: 6 comparisons x 64 pairs took minutes to compile).
// An integer scalar that the integer compute type cannot hold is compared in
// int64 instead of being wrapped, so `int8 == 300` is false everywhere.

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "pointwise_util.h"

namespace etkit::kernels {
namespace {

template <typename T>
using StorageOfBool = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };

template <typename C>
inline bool compare(Cmp cmp, C a, C b) {
  switch (cmp) {
    case Cmp::Eq: return a == b;
    case Cmp::Ne: return a != b;  // NaN != anything, NaN included
    case Cmp::Lt: return a < b;
    case Cmp::Le: return a <= b;
    case Cmp::Gt: return a > b;
    case Cmp::Ge: return a >= b;
  }
  return false;
}

// Runs the comparison with `cmp` a compile-time constant, so that each loop has no switch.
template <typename F>
void with_cmp(Cmp cmp, F&& f) {
  switch (cmp) {
    case Cmp::Eq: f(std::integral_constant<Cmp, Cmp::Eq>{}); break;
    case Cmp::Ne: f(std::integral_constant<Cmp, Cmp::Ne>{}); break;
    case Cmp::Lt: f(std::integral_constant<Cmp, Cmp::Lt>{}); break;
    case Cmp::Le: f(std::integral_constant<Cmp, Cmp::Le>{}); break;
    case Cmp::Gt: f(std::integral_constant<Cmp, Cmp::Gt>{}); break;
    case Cmp::Ge: f(std::integral_constant<Cmp, Cmp::Ge>{}); break;
  }
}

// Runs `loop(bool_out)` with a bool view of out's memory, then widens the 0/1 bytes to out's
// dtype, last element first (element i's byte sits at or before its wider slot, so nothing
// unread is overwritten).
template <typename Loop>
void into_bool(Tensor& out, Loop loop) {
  if (out.dtype() == ScalarType::Bool) {
    loop(out);
    return;
  }
  int32_t sizes[kMaxRank];
  uint8_t order[kMaxRank];
  int32_t strides[kMaxRank];
  const size_t rank = static_cast<size_t>(out.dim());
  for (size_t d = 0; d < rank; ++d) {
    sizes[d] = out.sizes()[d];
    order[d] = out.dim_order()[d];
  }
  Tensor view(ScalarType::Bool, {sizes, rank}, {order, rank}, {strides, rank}, out.data());
  loop(view);
  const uint8_t* bytes = static_cast<const uint8_t*>(out.data());
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using O = StorageOfBool<typename decltype(tag)::type>;
    O* o = out.data_as<O>();
    for (int64_t i = out.numel() - 1; i >= 0; --i) o[i] = static_cast<O>(bytes[i]);
  });
}

void compare_scalar(KernelContext& ctx, std::span<EValue*> args, Cmp cmp) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Scalar other;
  if (!scalar_arg(ctx, args, 1, "other", &other)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  // Half and BFloat16 compare in float32 (exact); out holds 0/1 in a computed dtype.
  if (!check_arithmetic_dtype(ctx, *self, "self") || !check_computed_dtype(ctx, *out, "out")) return;
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
  into_bool(*out, [&](Tensor& bool_out) {
    dispatch_compute(compute, [&](auto compute_tag) {
      using C = typename decltype(compute_tag)::type;
      // A 16-bit result type compares with the scalar rounded to it, as PyTorch casts it.
      const C s = round_to_dtype(other.to<C>(), compute);
      with_cmp(cmp, [&](auto k) {
        pointwise::map_to<bool, C, 1>(bool_out, {in},
                                      [s](C x) { return compare(decltype(k)::value, x, s); });
      });
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
  if (!check_computed_dtype(ctx, *out, "out")) return;
  Shape shape;
  if (!broadcast_shapes(ctx, *self, "self", *other, "other", &shape)) return;
  if (!resize_out(ctx, *out, shape.span())) return;
  const std::array<Operand, 2> in = {broadcast_operand(*self, out->sizes()),
                                     broadcast_operand(*other, out->sizes())};
  into_bool(*out, [&](Tensor& bool_out) {
    dispatch_compute(compute, [&](auto compute_tag) {
      using C = typename decltype(compute_tag)::type;
      with_cmp(cmp, [&](auto k) {
        pointwise::map_to<bool, C, 2>(bool_out, in,
                                      [](C x, C y) { return compare(decltype(k)::value, x, y); });
      });
    });
  });
}

void eq_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_scalar(ctx, args, Cmp::Eq);
}
void eq_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_tensor(ctx, args, Cmp::Eq);
}
void ne_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_scalar(ctx, args, Cmp::Ne);
}
void ne_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_tensor(ctx, args, Cmp::Ne);
}
void lt_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_scalar(ctx, args, Cmp::Lt);
}
void lt_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_tensor(ctx, args, Cmp::Lt);
}
void le_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_scalar(ctx, args, Cmp::Le);
}
void le_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_tensor(ctx, args, Cmp::Le);
}
void gt_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_scalar(ctx, args, Cmp::Gt);
}
void gt_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_tensor(ctx, args, Cmp::Gt);
}
void ge_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_scalar(ctx, args, Cmp::Ge);
}
void ge_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  compare_tensor(ctx, args, Cmp::Ge);
}

}  // namespace

std::span<const KernelEntry> comparison_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::eq.Scalar_out", eq_scalar_out, kArithmeticDtypes},
      {"aten::eq.Tensor_out", eq_tensor_out, kArithmeticDtypes},
      {"aten::ge.Scalar_out", ge_scalar_out, kArithmeticDtypes},
      {"aten::ge.Tensor_out", ge_tensor_out, kArithmeticDtypes},
      {"aten::gt.Scalar_out", gt_scalar_out, kArithmeticDtypes},
      {"aten::gt.Tensor_out", gt_tensor_out, kArithmeticDtypes},
      {"aten::le.Scalar_out", le_scalar_out, kArithmeticDtypes},
      {"aten::le.Tensor_out", le_tensor_out, kArithmeticDtypes},
      {"aten::lt.Scalar_out", lt_scalar_out, kArithmeticDtypes},
      {"aten::lt.Tensor_out", lt_tensor_out, kArithmeticDtypes},
      {"aten::ne.Scalar_out", ne_scalar_out, kArithmeticDtypes},
      {"aten::ne.Tensor_out", ne_tensor_out, kArithmeticDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
