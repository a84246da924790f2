// Bitwise and, or, xor and shifts of integer and bool tensors, with a tensor (broadcast) or a
// scalar; and the logical and, or, xor of tensors of any dtype.
//
// Bitwise ops: the out has the promoted dtype of the inputs (as add's); floats are refused, as
// in PyTorch. Shifts follow PyTorch's CPU kernels: a left shift by a negative count or by at
// least the type's width gives 0; a right shift by such a count fills with the sign bit (0 or
// -1); left shifts wrap. Logical ops read any computed dtype as true when non-zero and write 0/1
// into an out of any computed dtype (PyTorch allows a non-bool out).

#include <cstdint>
#include <type_traits>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "pointwise_util.h"
#include "scalar_tensor.h"

namespace etkit::kernels {
namespace {

enum class Bit { And, Or, Xor, Shl, Shr };

template <typename C>
C shift_left(C a, C b) {
  constexpr int64_t kBits = static_cast<int64_t>(sizeof(C) * 8);
  const int64_t n = static_cast<int64_t>(b);
  if (n < 0 || n >= kBits) return C(0);
  using U = std::make_unsigned_t<C>;
  return static_cast<C>(static_cast<U>(static_cast<U>(a) << n));
}

template <typename C>
C shift_right(C a, C b) {
  constexpr int64_t kBits = static_cast<int64_t>(sizeof(C) * 8);
  const int64_t n = static_cast<int64_t>(b);
  if (n < 0 || n >= kBits) {
    if constexpr (std::is_signed_v<C>) return a < 0 ? C(-1) : C(0);
    return C(0);
  }
  return static_cast<C>(a >> n);
}

template <Bit kOp, typename C>
C bit_op(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) {
    if constexpr (kOp == Bit::And) return a && b;
    if constexpr (kOp == Bit::Or) return a || b;
    return a != b;  // Xor; shifts refuse bool before the loop
  } else {
    if constexpr (kOp == Bit::And) return static_cast<C>(a & b);
    if constexpr (kOp == Bit::Or) return static_cast<C>(a | b);
    if constexpr (kOp == Bit::Xor) return static_cast<C>(a ^ b);
    if constexpr (kOp == Bit::Shl) return shift_left(a, b);
    if constexpr (kOp == Bit::Shr) return shift_right(a, b);
  }
}

template <Bit kOp>
void bitwise_tensor(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* other = tensor_arg(ctx, args, 1, "other");
  if (other == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  ScalarType common;
  if (!pointwise::promote_tensors(ctx, *self, *other, *out, &common)) return;
  const bool shift = kOp == Bit::Shl || kOp == Bit::Shr;
  if (!is_integral_type(common, !shift)) {
    ctx.fail(ErrorCode::InvalidType, "self and other promote to %s; %s needs integer%s tensors",
             scalar_type_name(common), shift ? "a shift" : "a bitwise op",
             shift ? "" : " or bool");
    return;
  }
  if (!pointwise::check_promoted_out(ctx, *out, common, "self and other")) return;
  Shape shape;
  if (!broadcast_shapes(ctx, *self, "self", *other, "other", &shape)) return;
  if (!resize_out(ctx, *out, shape.span())) return;
  const std::array<Operand, 2> in = {broadcast_operand(*self, out->sizes()),
                                     broadcast_operand(*other, out->sizes())};
  dispatch_dtype(common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (!std::is_floating_point_v<C>) {
      elementwise<C, 2>(*out, in, [](C a, C b) { return bit_op<kOp>(a, b); });
    }
  });
}

template <Bit kOp>
void bitwise_scalar(KernelContext& ctx, std::span<EValue*> args) {
  run_with_scalar_tensor(ctx, args, 1, 3, "other", bitwise_tensor<kOp>);
}

enum class Logic { And, Or, Xor };

template <Logic kOp>
void logical(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* other = tensor_arg(ctx, args, 1, "other");
  if (other == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  if (!check_arithmetic_dtype(ctx, *self, "self") || !check_arithmetic_dtype(ctx, *other, "other") ||
      !check_arithmetic_dtype(ctx, *out, "out")) {
    return;
  }
  Shape shape;
  if (!broadcast_shapes(ctx, *self, "self", *other, "other", &shape)) return;
  if (!resize_out(ctx, *out, shape.span())) return;
  const std::array<Operand, 2> in = {broadcast_operand(*self, out->sizes()),
                                     broadcast_operand(*other, out->sizes())};
  // Reading each input as bool (load_as converts non-zero, NaN included, to true).
  dispatch_compute(out->dtype(), [&](auto tag) {
    using O = typename decltype(tag)::type;
    pointwise::map_to<O, bool, 2>(*out, in, [](bool a, bool b) {
      if constexpr (kOp == Logic::And) return a && b;
      if constexpr (kOp == Logic::Or) return a || b;
      return a != b;
    });
  });
}

}  // namespace

std::span<const KernelEntry> bitwise_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::bitwise_and.Scalar_out", bitwise_scalar<Bit::And>, kIntegerOrBoolDtypes},
      {"aten::bitwise_and.Tensor_out", bitwise_tensor<Bit::And>, kIntegerOrBoolDtypes},
      {"aten::bitwise_left_shift.Tensor_Scalar_out", bitwise_scalar<Bit::Shl>, kIntegerDtypes},
      {"aten::bitwise_left_shift.Tensor_out", bitwise_tensor<Bit::Shl>, kIntegerDtypes},
      {"aten::bitwise_or.Scalar_out", bitwise_scalar<Bit::Or>, kIntegerOrBoolDtypes},
      {"aten::bitwise_or.Tensor_out", bitwise_tensor<Bit::Or>, kIntegerOrBoolDtypes},
      {"aten::bitwise_right_shift.Tensor_Scalar_out", bitwise_scalar<Bit::Shr>, kIntegerDtypes},
      {"aten::bitwise_right_shift.Tensor_out", bitwise_tensor<Bit::Shr>, kIntegerDtypes},
      {"aten::bitwise_xor.Scalar_out", bitwise_scalar<Bit::Xor>, kIntegerOrBoolDtypes},
      {"aten::bitwise_xor.Tensor_out", bitwise_tensor<Bit::Xor>, kIntegerOrBoolDtypes},
      {"aten::logical_and.out", logical<Logic::And>, kArithmeticDtypes},
      {"aten::logical_or.out", logical<Logic::Or>, kArithmeticDtypes},
      {"aten::logical_xor.out", logical<Logic::Xor>, kArithmeticDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
