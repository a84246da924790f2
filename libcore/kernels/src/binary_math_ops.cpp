// Binary math: maximum, minimum, fmod, remainder (tensor and scalar overloads) and atan2.
//
// maximum/minimum/fmod/remainder write the promoted dtype of the inputs (out must have it);
// maximum and minimum propagate NaN (either input NaN gives NaN, unlike fmax). fmod's result has
// the dividend's sign (C's fmod / %); remainder's the divisor's (Python's %). Integer fmod and
// remainder by zero fail, as PyTorch raises. atan2 computes integers in float32 and writes any
// floating out.

#include <cmath>
#include <type_traits>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/float16.h"
#include "etkit/kernels/kernel_util.h"
#include "float_loops.h"
#include "fmod_math.h"
#include "kernels.h"
#include "pointwise_util.h"
#include "scalar_tensor.h"

namespace etkit::kernels {
namespace {

enum class Op2 { Max, Min, Fmod, Remainder };

template <Op2 kOp, typename C>
C apply(C a, C b) {
  if constexpr (kOp == Op2::Max || kOp == Op2::Min) {
    if constexpr (std::is_floating_point_v<C>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    if constexpr (kOp == Op2::Max) return a < b ? b : a;
    return b < a ? b : a;
  } else if constexpr (std::is_floating_point_v<C>) {
    if constexpr (std::is_same_v<C, float>) {
      return kOp == Op2::Fmod ? fmod_float(a, b) : remainder_float(a, b);
    } else {
      C m = std::fmod(a, b);
      if constexpr (kOp == Op2::Remainder) {
        if (m != C(0) && ((b < C(0)) != (m < C(0)))) m += b;
      }
      return m;
    }
  } else if constexpr (std::is_same_v<C, bool>) {
    return a;  // not reached: bool fmod/remainder is refused
  } else {
    // b != 0 was checked; x % -1 is 0 (and INT_MIN % -1 would trap).
    if constexpr (std::is_signed_v<C>) {
      if (b == C(-1)) return C(0);
    }
    C m = static_cast<C>(a % b);
    if constexpr (kOp == Op2::Remainder) {
      if (m != C(0) && ((b < C(0)) != (m < C(0)))) m = static_cast<C>(m + b);
    }
    return m;
  }
}

// Elements per block of the 16-bit fast path: three float buffers of this many on the stack.
constexpr int64_t kFloat16Block = 512;

// Elements done..done+m-1 of `op` (walking like out, or one element) as floats: a float32
// operand's own memory, or a 16-bit one widened into `buf`.
const float* float_block(const Operand& op, detail::Walk walk, int64_t done, int64_t m,
                         float* buf) {
  const int64_t first = walk == detail::Walk::Linear ? done : 0;
  const int64_t count = walk == detail::Walk::Linear ? m : 1;
  if (op.dtype == ScalarType::Float) return static_cast<const float*>(op.data) + first;
  widen_float16(static_cast<const uint16_t*>(op.data) + first, op.dtype, buf, count);
  return buf;
}

// fmod or remainder computed in float32 whose inputs each walk like out or are one element, and
// are float32 or out's dtype: float_loops.h's loop for this machine. A Half or BFloat16 out is
// computed a block at a time from widened inputs and rounded once on store, as elementwise.h's
// 16-bit path does (a Scalar beside a 16-bit tensor arrives as float32). Returns false for any
// other case, which elementwise's general loop takes.
template <Op2 kOp>
bool float_fast_path(Tensor& out, const std::array<Operand, 2>& in) {
  const ScalarType dtype = out.dtype();
  const bool float16 = is_float16_type(dtype);
  for (const Operand& op : in) {
    if (op.dtype != ScalarType::Float && (!float16 || op.dtype != dtype)) return false;
  }
  if (dtype != ScalarType::Float && !float16) return false;
  using detail::Walk;
  const Walk wa = detail::classify(in[0], out);
  const Walk wb = detail::classify(in[1], out);
  const FloatLoops2& loops = kOp == Op2::Fmod ? float_loops().fmod : float_loops().remainder;
  FloatLoop2 loop = nullptr;
  if (wa == Walk::Linear && wb == Walk::Linear) {
    loop = loops.both;
  } else if (wa == Walk::Linear && wb == Walk::Single) {
    loop = loops.scalar_b;
  } else if (wa == Walk::Single && wb == Walk::Linear) {
    loop = loops.scalar_a;
  } else {
    return false;
  }
  const int64_t n = out.numel();
  if (!float16) {
    loop(static_cast<const float*>(in[0].data), static_cast<const float*>(in[1].data),
         out.data_as<float>(), n);
    return true;
  }
  auto* o = static_cast<uint16_t*>(out.data());
  float a_buf[kFloat16Block];
  float b_buf[kFloat16Block];
  float result[kFloat16Block];
  for (int64_t done = 0; done < n; done += kFloat16Block) {
    const int64_t m = n - done < kFloat16Block ? n - done : kFloat16Block;
    loop(float_block(in[0], wa, done, m, a_buf), float_block(in[1], wb, done, m, b_buf), result,
         m);
    narrow_float16(result, dtype, o + done, m);
  }
  return true;
}

bool has_zero_element(const Tensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (load_as<int64_t>(t.data(), t.dtype(), i) == 0) return true;
  }
  return false;
}

template <Op2 kOp>
void binary_math(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* other = tensor_arg(ctx, args, 1, "other");
  if (other == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  ScalarType common;
  if (!pointwise::promote_tensors(ctx, *self, *other, *out, &common)) return;
  constexpr bool kDivides = kOp == Op2::Fmod || kOp == Op2::Remainder;
  if (kDivides && common == ScalarType::Bool) {
    ctx.fail(ErrorCode::InvalidType, "self and other have dtype bool, which %s does not support",
             kOp == Op2::Fmod ? "fmod" : "remainder");
    return;
  }
  if (kDivides && !is_floating_type(common) && has_zero_element(*other)) {
    ctx.fail(ErrorCode::InvalidArgument, "other has a zero element: integer %s by zero",
             kOp == Op2::Fmod ? "fmod" : "remainder");
    return;
  }
  if (!pointwise::check_promoted_out(ctx, *out, common, "self and other")) return;
  Shape shape;
  if (!broadcast_shapes(ctx, *self, "self", *other, "other", &shape)) return;
  if (!resize_out(ctx, *out, shape.span())) return;
  const std::array<Operand, 2> in = {broadcast_operand(*self, out->sizes()),
                                     broadcast_operand(*other, out->sizes())};
  if constexpr (kDivides) {
    if (out->numel() > 0 && float_fast_path<kOp>(*out, in)) return;
  }
  dispatch_compute(common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    elementwise<C, 2>(*out, in, [](C a, C b) { return apply<kOp>(a, b); });
  });
}

template <Op2 kOp>
void binary_math_scalar(KernelContext& ctx, std::span<EValue*> args) {
  run_with_scalar_tensor(ctx, args, 1, 3, "other", binary_math<kOp>);
}

void atan2_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* other = tensor_arg(ctx, args, 1, "other");
  if (other == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  ScalarType common;
  if (!pointwise::promote_tensors(ctx, *self, *other, *out, &common)) return;
  if (!is_floating_type(common)) common = ScalarType::Float;
  if (!pointwise::check_floating_out(ctx, *out)) return;
  Shape shape;
  if (!broadcast_shapes(ctx, *self, "self", *other, "other", &shape)) return;
  if (!resize_out(ctx, *out, shape.span())) return;
  const std::array<Operand, 2> in = {broadcast_operand(*self, out->sizes()),
                                     broadcast_operand(*other, out->sizes())};
  pointwise::dispatch_pair(out->dtype(), common, [&](auto out_tag, auto compute_tag) {
    using O = typename decltype(out_tag)::type;
    using C = typename decltype(compute_tag)::type;
    if constexpr (std::is_floating_point_v<C> && std::is_floating_point_v<O>) {
      pointwise::map_to<O, C, 2>(*out, in, [](C y, C x) { return std::atan2(y, x); });
    }
  });
}

}  // namespace

std::span<const KernelEntry> binary_math_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::atan2.out", atan2_out, kArithmeticDtypes},
      {"aten::fmod.Scalar_out", binary_math_scalar<Op2::Fmod>, kNumericDtypes},
      {"aten::fmod.Tensor_out", binary_math<Op2::Fmod>, kNumericDtypes},
      {"aten::maximum.out", binary_math<Op2::Max>, kArithmeticDtypes},
      {"aten::minimum.out", binary_math<Op2::Min>, kArithmeticDtypes},
      {"aten::remainder.Scalar_out", binary_math_scalar<Op2::Remainder>, kNumericDtypes},
      {"aten::remainder.Tensor_out", binary_math<Op2::Remainder>, kNumericDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
