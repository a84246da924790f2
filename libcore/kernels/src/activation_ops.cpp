// Activations: relu, hardtanh, sigmoid, gelu (exact and tanh approximation), silu.
//
// As in ExecuTorch's portable kernels: relu and hardtanh keep self's dtype (any real type, not
// bool); gelu and silu take a floating self and keep its dtype; sigmoid takes any computed dtype
// and writes a floating out, like tanh. NaN passes through relu and hardtanh unchanged.
//
// sigmoid, silu and gelu 'tanh' of float take fast_exp (fast_math.h), so their contiguous loops
// vectorize; double keeps std::exp. sigmoid's contiguous float loop is float_loops.h's, built
// for AVX2+FMA too and chosen by the CPU.

#include <cmath>
#include <string_view>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/fast_math.h"
#include "float_loops.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "pointwise_util.h"

namespace etkit::kernels {
namespace {

using pointwise::check_floating_out;
using pointwise::scalar_fits;
using pointwise::ScalarText;

// Unpacks self (args[0]) and out (args[out_index]), checking the argument count first.
bool self_and_out(KernelContext& ctx, std::span<EValue*> args, size_t num_schema_args,
                  Tensor** self, Tensor** out) {
  if (!check_num_args(ctx, args, num_schema_args)) return false;
  *self = tensor_arg(ctx, args, 0, "self");
  if (*self == nullptr) return false;
  *out = tensor_arg(ctx, args, num_schema_args - 1, "out");
  if (*out == nullptr) return false;
  return check_arithmetic_dtype(ctx, **self, "self") && check_arithmetic_dtype(ctx, **out, "out");
}

bool check_not_bool(KernelContext& ctx, const Tensor& self, const char* op) {
  if (self.dtype() == ScalarType::Bool) {
    ctx.fail(ErrorCode::InvalidType, "self has dtype bool, which %s does not support", op);
    return false;
  }
  return true;
}

// The exp-based activations as function objects, not lambdas, so that they can be always_inline:
// GCC's inliner otherwise leaves a call in elementwise's loops and they stay scalar.
struct Sigmoid {
  template <typename T>
  [[gnu::always_inline]] T operator()(T x) const {
    return sigmoid_of(x);
  }
};

struct Silu {
  template <typename T>
  [[gnu::always_inline]] T operator()(T x) const {
    return silu_of(x);
  }
};

struct GeluTanh {
  template <typename T>
  [[gnu::always_inline]] T operator()(T x) const {
    return gelu_tanh_of(x);
  }
};

bool check_floating_self(KernelContext& ctx, const Tensor& self, const char* op) {
  if (!is_floating_type(self.dtype())) {
    ctx.fail(ErrorCode::InvalidType, "self has dtype %s; %s needs a floating type",
             scalar_type_name(self.dtype()), op);
    return false;
  }
  return true;
}

void relu_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_and_out(ctx, args, 2, &self, &out)) return;
  if (!check_not_bool(ctx, *self, "relu")) return;
  if (!check_dtype_is(ctx, *out, "out", self->dtype())) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_compute(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<C, bool>) {
      // `x < 0` is false for NaN, so NaN passes through as in PyTorch.
      elementwise<C, 1>(
          *out, {in}, [](C x) { return x < C(0) ? C(0) : x; }, nullptr, ctx.parallel());
    }
  });
}

void hardtanh_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_and_out(ctx, args, 4, &self, &out)) return;
  if (!check_not_bool(ctx, *self, "hardtanh")) return;
  Scalar lo;
  Scalar hi;
  if (!scalar_arg(ctx, args, 1, "min_val", &lo) || !scalar_arg(ctx, args, 2, "max_val", &hi)) {
    return;
  }
  if (!check_dtype_is(ctx, *out, "out", self->dtype())) return;
  // ExecuTorch refuses bounds that cannot be cast to self's dtype (a double for integers).
  const bool integral = !is_floating_type(self->dtype());
  if (integral && (lo.is_floating() || hi.is_floating())) {
    ctx.fail(ErrorCode::InvalidType, "%s is a double, which cannot bound a %s tensor",
             lo.is_floating() ? "min_val" : "max_val", scalar_type_name(self->dtype()));
    return;
  }
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_compute(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<C, bool>) {
      if (!scalar_fits<C>(lo) || !scalar_fits<C>(hi)) {
        const bool bad_lo = !scalar_fits<C>(lo);
        ctx.fail(ErrorCode::InvalidArgument, "%s %s does not fit dtype %s",
                 bad_lo ? "min_val" : "max_val", ScalarText(bad_lo ? lo : hi).text,
                 scalar_type_name(out->dtype()));
        return;
      }
      const C l = lo.to<C>();
      const C h = hi.to<C>();
      // clamp(x, l, h) as PyTorch: NaN stays NaN; l > h gives h everywhere.
      elementwise<C, 1>(*out, {in}, [l, h](C x) {
        const C y = x < l ? l : x;
        return y > h ? h : y;
      });
    }
  });
}

void sigmoid_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_and_out(ctx, args, 2, &self, &out)) return;
  // PyTorch computes sigmoid of integers and bools in a floating type; any floating out holds it.
  if (!check_floating_out(ctx, *out)) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_compute(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_same_v<C, float>) {
      elementwise<C, 1>(*out, {in}, Sigmoid{}, float_loops().sigmoid, ctx.parallel());
    } else if constexpr (std::is_floating_point_v<C>) {
      elementwise<C, 1>(*out, {in}, Sigmoid{}, nullptr, ctx.parallel());
    }
  });
}

void gelu_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_and_out(ctx, args, 3, &self, &out)) return;
  if (!args[1]->is_string()) {
    ctx.fail(ErrorCode::InvalidType, "approximate is not a string, expected 'none' or 'tanh'");
    return;
  }
  const std::string_view approximate = args[1]->to_string();
  const bool use_tanh = approximate == "tanh";
  if (!use_tanh && approximate != "none") {
    ctx.fail(ErrorCode::InvalidArgument, "approximate is '%.*s', expected 'none' or 'tanh'",
             static_cast<int>(approximate.size() > 32 ? 32 : approximate.size()),
             approximate.data());
    return;
  }
  if (!check_floating_self(ctx, *self, "gelu")) return;
  if (!check_dtype_is(ctx, *out, "out", self->dtype())) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_compute(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      if (use_tanh) {
        if constexpr (std::is_same_v<C, float>) {
          elementwise<C, 1>(*out, {in}, GeluTanh{}, float_loops().gelu_tanh);
        } else {
          elementwise<C, 1>(*out, {in}, GeluTanh{});
        }
      } else {
        // 0.5 x (1 + erf(x / sqrt(2)))
        constexpr C kAlpha = C(0.7071067811865476);
        elementwise<C, 1>(*out, {in},
                          [](C x) { return C(0.5) * x * (C(1) + std::erf(x * kAlpha)); });
      }
    }
  });
}

void silu_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_and_out(ctx, args, 2, &self, &out)) return;
  if (!check_floating_self(ctx, *self, "silu")) return;
  if (!check_dtype_is(ctx, *out, "out", self->dtype())) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_compute(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      if constexpr (std::is_same_v<C, float>) {
        elementwise<C, 1>(*out, {in}, Silu{}, float_loops().silu);
      } else {
        elementwise<C, 1>(*out, {in}, Silu{});
      }
    }
  });
}

}  // namespace

std::span<const KernelEntry> activation_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::gelu.out", gelu_out, kFloatingDtypes},
      {"aten::hardtanh.out", hardtanh_out, kNumericDtypes},
      {"aten::relu.out", relu_out, kNumericDtypes},
      {"aten::sigmoid.out", sigmoid_out, kArithmeticDtypes},
      {"aten::silu.out", silu_out, kFloatingDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
