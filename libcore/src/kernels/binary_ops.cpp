// Binary arithmetic: add, sub, mul (tensor and scalar), pow(tensor, scalar).
//
// The result dtype follows PyTorch's result_type (kernel_util.h) and, as in ExecuTorch's portable
// kernels, `out` must have exactly that dtype. Integers wrap on overflow instead of being UB.

#include <cmath>

#include "kernels/elementwise.h"
#include "kernels/kernel_util.h"
#include "kernels/kernels.h"

namespace etkit::kernels {
namespace {

// Checks that `out` has `expected`, the promoted dtype of the inputs.
bool check_out_dtype(KernelContext& ctx, const Tensor& out, ScalarType expected,
                     const char* inputs) {
  if (out.dtype() != expected) {
    ctx.fail(ErrorCode::InvalidType, "out has dtype %s, expected %s (the promoted dtype of %s)",
             scalar_type_name(out.dtype()), scalar_type_name(expected), inputs);
    return false;
  }
  return true;
}

bool promoted_dtype(KernelContext& ctx, const ResultType& rt, const char* inputs, ScalarType* out) {
  if (!rt.get(out)) {
    ctx.fail(ErrorCode::InvalidType, "%s have dtypes etkit cannot promote", inputs);
    return false;
  }
  return true;
}

// PyTorch's alpha_check: a bool alpha needs a bool result; a double alpha a floating one.
bool check_alpha(KernelContext& ctx, const Scalar& alpha, ScalarType common) {
  if (alpha.is_bool() && common != ScalarType::Bool) {
    ctx.fail(ErrorCode::InvalidType, "alpha is a bool, which needs a bool result, not %s",
             scalar_type_name(common));
    return false;
  }
  if (alpha.is_floating() && !is_floating_type(common)) {
    ctx.fail(ErrorCode::InvalidType, "alpha is a double, which needs a floating result, not %s",
             scalar_type_name(common));
    return false;
  }
  return true;
}

// The part of add/sub/mul.out shared by all three: arguments, dtypes, broadcasting, resize.
struct BinaryArgs {
  Tensor* self = nullptr;
  Tensor* other = nullptr;
  Tensor* out = nullptr;
  ScalarType common = ScalarType::Float;
  std::array<Operand, 2> operands;
};

bool prepare_binary(KernelContext& ctx, std::span<EValue*> args, size_t out_index,
                    BinaryArgs* b) {
  b->self = tensor_arg(ctx, args, 0, "self");
  if (b->self == nullptr) return false;
  b->other = tensor_arg(ctx, args, 1, "other");
  if (b->other == nullptr) return false;
  b->out = tensor_arg(ctx, args, out_index, "out");
  if (b->out == nullptr) return false;
  if (!check_computed_dtype(ctx, *b->self, "self") ||
      !check_computed_dtype(ctx, *b->other, "other") ||
      !check_computed_dtype(ctx, *b->out, "out")) {
    return false;
  }
  ResultType rt;
  rt.add_tensor(*b->self);
  rt.add_tensor(*b->other);
  if (!promoted_dtype(ctx, rt, "self and other", &b->common)) return false;
  return true;
}

bool finish_binary(KernelContext& ctx, BinaryArgs* b) {
  if (!check_out_dtype(ctx, *b->out, b->common, "self and other")) return false;
  Shape shape;
  if (!broadcast_shapes(ctx, *b->self, "self", *b->other, "other", &shape)) return false;
  if (!resize_out(ctx, *b->out, shape.span())) return false;
  b->operands = {broadcast_operand(*b->self, b->out->sizes()),
                 broadcast_operand(*b->other, b->out->sizes())};
  return true;
}

// out = self + sign * alpha * other, in the result dtype.
void add_sub(KernelContext& ctx, std::span<EValue*> args, bool subtract) {
  if (!check_num_args(ctx, args, 4)) return;
  BinaryArgs b;
  if (!prepare_binary(ctx, args, 3, &b)) return;
  if (subtract &&
      (b.self->dtype() == ScalarType::Bool || b.other->dtype() == ScalarType::Bool)) {
    ctx.fail(ErrorCode::InvalidType,
             "%s has dtype bool; subtraction with a bool tensor is not supported (use "
             "logical_xor or logical_not)",
             b.self->dtype() == ScalarType::Bool ? "self" : "other");
    return;
  }
  Scalar alpha;
  if (!scalar_arg(ctx, args, 2, "alpha", &alpha)) return;
  if (!check_alpha(ctx, alpha, b.common)) return;
  if (!finish_binary(ctx, &b)) return;

  dispatch_dtype(b.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_same_v<C, bool>) {
      // Bool add computes a + alpha * b and converts to bool: a logical or.
      const bool a = alpha.to<bool>();
      elementwise<C, 2>(*b.out, b.operands, [a](bool x, bool y) { return x || (a && y); });
    } else {
      const C a = alpha.to<C>();
      const bool unit = alpha.kind != Scalar::Kind::Double ? alpha.i == 1 : alpha.d == 1.0;
      if (subtract && unit) {
        elementwise<C, 2>(*b.out, b.operands, [](C x, C y) { return sub_wrap(x, y); });
      } else if (subtract) {
        elementwise<C, 2>(*b.out, b.operands, [a](C x, C y) { return sub_wrap(x, mul_wrap(a, y)); });
      } else if (unit) {
        elementwise<C, 2>(*b.out, b.operands, [](C x, C y) { return add_wrap(x, y); });
      } else {
        elementwise<C, 2>(*b.out, b.operands, [a](C x, C y) { return add_wrap(x, mul_wrap(a, y)); });
      }
    }
  });
}

// Integer power by squaring, wrapping on overflow; `e` >= 0.
template <typename C>
C int_pow(C base, uint64_t e) {
  C result = C(1);
  while (e != 0) {
    if ((e & 1u) != 0) result = mul_wrap(result, base);
    base = mul_wrap(base, base);
    e >>= 1;
  }
  return result;
}

}  // namespace

void add_out(KernelContext& ctx, std::span<EValue*> args) { add_sub(ctx, args, false); }

void sub_out(KernelContext& ctx, std::span<EValue*> args) { add_sub(ctx, args, true); }

void mul_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  BinaryArgs b;
  if (!prepare_binary(ctx, args, 2, &b) || !finish_binary(ctx, &b)) return;
  dispatch_dtype(b.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    elementwise<C, 2>(*b.out, b.operands, [](C x, C y) { return mul_wrap(x, y); });
  });
}

void mul_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
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
  ScalarType common;
  if (!promoted_dtype(ctx, rt, "self and other", &common)) return;
  if (!check_out_dtype(ctx, *out, common, "self and other")) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_dtype(common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    const C s = other.to<C>();
    elementwise<C, 1>(*out, {in}, [s](C x) { return mul_wrap(x, s); });
  });
}

void pow_tensor_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Scalar exponent;
  if (!scalar_arg(ctx, args, 1, "exponent", &exponent)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  if (!check_computed_dtype(ctx, *self, "self") || !check_computed_dtype(ctx, *out, "out")) return;
  ResultType rt;
  rt.add_tensor(*self);
  rt.add_scalar(exponent);
  ScalarType common;
  if (!promoted_dtype(ctx, rt, "self and exponent", &common)) return;
  if (common == ScalarType::Bool) {
    // PyTorch has no bool pow kernel; a bool tensor with an int exponent promotes to int64.
    ctx.fail(ErrorCode::InvalidType,
             "self has dtype bool and exponent is a bool: pow is not supported for a bool result");
    return;
  }
  if (!is_floating_type(common) && !exponent.is_floating() && exponent.to<int64_t>() < 0) {
    ctx.fail(ErrorCode::InvalidArgument,
             "exponent is %lld: integers to negative integer powers are not allowed",
             static_cast<long long>(exponent.to<int64_t>()));
    return;
  }
  if (!check_out_dtype(ctx, *out, common, "self and exponent")) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_dtype(common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      const C e = exponent.to<C>();
      if (e == C(2)) {
        elementwise<C, 1>(*out, {in}, [](C x) { return x * x; });
      } else {
        elementwise<C, 1>(*out, {in}, [e](C x) { return static_cast<C>(std::pow(x, e)); });
      }
    } else if constexpr (!std::is_same_v<C, bool>) {
      const uint64_t e = static_cast<uint64_t>(exponent.to<int64_t>());
      elementwise<C, 1>(*out, {in}, [e](C x) { return int_pow(x, e); });
    }
  });
}

std::span<const KernelEntry> binary_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::add.out", add_out},
      {"aten::mul.Scalar_out", mul_scalar_out},
      {"aten::mul.out", mul_out},
      {"aten::pow.Tensor_Scalar_out", pow_tensor_scalar_out},
      {"aten::sub.out", sub_out},
  };
  return kTable;
}

}  // namespace etkit::kernels
