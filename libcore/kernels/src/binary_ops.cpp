// Binary arithmetic: add, sub, rsub, mul, div (true and with a rounding mode), floor_divide and
// pow, in their tensor and scalar overloads. A `.Scalar` overload runs the tensor kernel on the
// scalar as a rank-0 tensor of the promoted dtype (scalar_tensor.h).
//
// The result dtype follows PyTorch's result_type (kernel_util.h) and, as in ExecuTorch's portable
// kernels, `out` must have exactly that dtype, except for div: true division computes integers
// in float32 and writes any floating out; with a rounding mode the result may be cast to any out
// PyTorch can cast it to. Integers wrap on overflow instead of being UB.

#include <cmath>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "pointwise_util.h"
#include "scalar_tensor.h"

namespace etkit::kernels {
namespace {

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
  return pointwise::promote_tensors(ctx, *b->self, *b->other, *b->out, &b->common);
}

bool finish_binary(KernelContext& ctx, BinaryArgs* b) {
  if (!pointwise::check_promoted_out(ctx, *b->out, b->common, "self and other")) return false;
  Shape shape;
  if (!broadcast_shapes(ctx, *b->self, "self", *b->other, "other", &shape)) return false;
  if (!resize_out(ctx, *b->out, shape.span())) return false;
  broadcast_operand(*b->self, b->out->sizes(), &b->operands[0]);
  broadcast_operand(*b->other, b->out->sizes(), &b->operands[1]);
  return true;
}

// The tensors of a float32 call whose self, other and out have one shape (and so one layout:
// strides follow from sizes and dim order), all with memory: promotion, broadcasting and the
// resize of out are no-ops and every check of the general path holds, so the loop runs over
// memory directly (#16: a one-element add is all argument handling). Checked per call, nothing
// is prepared at load, so a tensor resized at run time just misses or takes the fast path on its
// current shape. Anything else takes the general path, which reports the errors.
struct SameShapeFloat {
  const float* self;
  const float* other;
  float* out;
  int64_t numel;
};

bool same_shape_float(std::span<EValue*> args, size_t out_index, SameShapeFloat* f) {
  // check_num_args's conditions: out is the last schema argument, then the return slot.
  if (args.size() != out_index + 2) return false;
  for (const EValue* v : args) {
    if (v == nullptr) return false;
  }
  if (!args.back()->is_tensor()) return false;
  const EValue* vs = args[0];
  const EValue* vo = args[1];
  const EValue* vr = args[out_index];
  if (!vs->is_tensor() || !vo->is_tensor() || !vr->is_tensor()) return false;
  const Tensor* s = vs->tensor_ptr();
  const Tensor* o = vo->tensor_ptr();
  const Tensor* r = vr->tensor_ptr();
  if (s == nullptr || o == nullptr || r == nullptr) return false;
  if (s->dtype() != ScalarType::Float || o->dtype() != ScalarType::Float ||
      r->dtype() != ScalarType::Float) {
    return false;
  }
  const int rank = r->dim();
  if (s->dim() != rank || o->dim() != rank) return false;
  const int32_t* rs = r->sizes().data();
  const int32_t* ss = s->sizes().data();
  const int32_t* os = o->sizes().data();
  const int32_t* rst = r->strides().data();
  const int32_t* sst = s->strides().data();
  const int32_t* ost = o->strides().data();
  for (int d = 0; d < rank; ++d) {
    if (ss[d] != rs[d] || os[d] != rs[d] || sst[d] != rst[d] || ost[d] != rst[d]) return false;
  }
  f->numel = r->numel();
  f->self = static_cast<const float*>(s->data());
  f->other = static_cast<const float*>(o->data());
  f->out = static_cast<float*>(r->data());
  return f->numel == 0 || (f->self != nullptr && f->other != nullptr && f->out != nullptr);
}

// out = self + sign * alpha * other, in the result dtype.
void add_sub(KernelContext& ctx, std::span<EValue*> args, bool subtract) {
  SameShapeFloat f;
  if (same_shape_float(args, 3, &f) && (args[2]->is_int() || args[2]->is_double())) {
    // An int or double alpha is valid with a float result (check_alpha).
    const EValue* alpha_value = args[2];
    const float a = alpha_value->is_int() ? static_cast<float>(alpha_value->to_int())
                                          : static_cast<float>(alpha_value->to_double());
    const bool unit = alpha_value->is_int() ? alpha_value->to_int() == 1
                                            : alpha_value->to_double() == 1.0;
    const float* x = f.self;
    const float* y = f.other;
    float* o = f.out;
    // Large tensors split over the method's threads, as the general path's loops do.
    flat_split(ctx.parallel(), f.numel, [=](int64_t i0, int64_t i1) {
      if (unit && subtract) {
        for (int64_t i = i0; i < i1; ++i) o[i] = x[i] - y[i];
      } else if (unit) {
        for (int64_t i = i0; i < i1; ++i) o[i] = x[i] + y[i];
      } else if (subtract) {
        for (int64_t i = i0; i < i1; ++i) o[i] = x[i] - a * y[i];
      } else {
        for (int64_t i = i0; i < i1; ++i) o[i] = x[i] + a * y[i];
      }
    });
    return;
  }
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

  dispatch_compute(b.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_same_v<C, bool>) {
      // Bool add computes a + alpha * b and converts to bool: a logical or.
      const bool a = alpha.to<bool>();
      elementwise<C, 2>(*b.out, b.operands, [a](bool x, bool y) { return x || (a && y); });
    } else {
      const C a = alpha.to<C>();
      const bool unit = alpha.kind != Scalar::Kind::Double ? alpha.i == 1 : alpha.d == 1.0;
      if (subtract && unit) {
        elementwise<C, 2>(
            *b.out, b.operands, [](C x, C y) { return sub_wrap(x, y); }, nullptr, ctx.parallel());
      } else if (subtract) {
        elementwise<C, 2>(
            *b.out, b.operands, [a](C x, C y) { return sub_wrap(x, mul_wrap(a, y)); }, nullptr,
            ctx.parallel());
      } else if (unit) {
        elementwise<C, 2>(
            *b.out, b.operands, [](C x, C y) { return add_wrap(x, y); }, nullptr, ctx.parallel());
      } else {
        elementwise<C, 2>(
            *b.out, b.operands, [a](C x, C y) { return add_wrap(x, mul_wrap(a, y)); }, nullptr,
            ctx.parallel());
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

enum class Rounding { None, Trunc, Floor };

// PyTorch's div_floor for floating types: the floor of the exact quotient, computed from fmod so
// that a quotient just below an integer does not round up to it.
template <typename C>
C floor_divide_floating(C a, C b) {
  if (b == C(0)) return a / b;
  const C mod = std::fmod(a, b);
  C div = (a - mod) / b;
  if (mod != C(0) && ((b < C(0)) != (mod < C(0)))) div -= C(1);
  if (div == C(0)) return std::copysign(C(0), a / b);
  C floor_div = std::floor(div);
  if (div - floor_div > C(0.5)) floor_div += C(1);
  return floor_div;
}

// Integer division rounded toward zero or down; `b` is not zero. INT_MIN / -1 wraps (to INT_MIN)
// instead of trapping.
template <typename C>
C divide_integer(C a, C b, Rounding rounding) {
  if constexpr (std::is_signed_v<C>) {
    if (b == C(-1)) return sub_wrap(C(0), a);
  }
  C q = static_cast<C>(a / b);
  if (rounding == Rounding::Floor) {
    const C r = static_cast<C>(a % b);
    if (r != C(0) && ((r < C(0)) != (b < C(0)))) q = static_cast<C>(q - C(1));
  }
  return q;
}

// True if any element of `t` is zero. Its elements fill numel() slots of memory whatever its dim
// order, so they can be scanned flat.
bool has_zero(const Tensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (load_as<int64_t>(t.data(), t.dtype(), i) == 0) return true;
  }
  return false;
}

void div(KernelContext& ctx, std::span<EValue*> args, size_t out_index, Rounding rounding) {
  BinaryArgs b;
  if (!prepare_binary(ctx, args, out_index, &b)) return;
  ScalarType compute = b.common;
  if (rounding == Rounding::None) {
    // True division: integers and bools divide in the default float dtype.
    if (!is_floating_type(compute)) compute = ScalarType::Float;
    if (!pointwise::check_floating_out(ctx, *b.out)) return;
  } else {
    if (compute == ScalarType::Bool) {
      ctx.fail(ErrorCode::InvalidType,
               "self and other have dtype bool, which division with a rounding mode does not "
               "support");
      return;
    }
    if (!pointwise::can_cast(compute, b.out->dtype())) {
      ctx.fail(ErrorCode::InvalidType,
               "out has dtype %s, which the result dtype %s cannot be cast to",
               scalar_type_name(b.out->dtype()), scalar_type_name(compute));
      return;
    }
    if (!is_floating_type(compute) && has_zero(*b.other)) {
      ctx.fail(ErrorCode::InvalidArgument,
               "other has a zero element: integer division by zero (rounding_mode '%s')",
               rounding == Rounding::Trunc ? "trunc" : "floor");
      return;
    }
  }
  Shape shape;
  if (!broadcast_shapes(ctx, *b.self, "self", *b.other, "other", &shape)) return;
  if (!resize_out(ctx, *b.out, shape.span())) return;
  b.operands = {broadcast_operand(*b.self, b.out->sizes()),
                broadcast_operand(*b.other, b.out->sizes())};
  pointwise::dispatch_pair(b.out->dtype(), compute, [&](auto out_tag, auto compute_tag) {
    using O = typename decltype(out_tag)::type;
    using C = typename decltype(compute_tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      if (rounding == Rounding::None) {
        pointwise::map_to<O, C, 2>(*b.out, b.operands, [](C x, C y) { return x / y; });
      } else if (rounding == Rounding::Trunc) {
        pointwise::map_to<O, C, 2>(*b.out, b.operands,
                                   [](C x, C y) { return std::trunc(x / y); });
      } else {
        pointwise::map_to<O, C, 2>(*b.out, b.operands,
                                   [](C x, C y) { return floor_divide_floating(x, y); });
      }
    } else if constexpr (!std::is_same_v<C, bool>) {
      pointwise::map_to<O, C, 2>(*b.out, b.operands,
                                 [rounding](C x, C y) { return divide_integer(x, y, rounding); });
    }
  });
}

void div_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  div(ctx, args, 2, Rounding::None);
}

void div_mode_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Rounding rounding = Rounding::None;
  const EValue* mode = args[2];
  if (mode->is_string()) {
    const std::string_view name = mode->to_string();
    if (name == "trunc") {
      rounding = Rounding::Trunc;
    } else if (name == "floor") {
      rounding = Rounding::Floor;
    } else {
      ctx.fail(ErrorCode::InvalidArgument,
               "rounding_mode is '%.*s', expected 'trunc', 'floor' or none",
               static_cast<int>(name.size() > 32 ? 32 : name.size()), name.data());
      return;
    }
  } else if (!mode->is_none()) {
    ctx.fail(ErrorCode::InvalidType, "rounding_mode is not a string or none");
    return;
  }
  div(ctx, args, 3, rounding);
}

// Integer power with a possibly negative exponent (tensor exponents: PyTorch gives 1 for base 1,
// +-1 for base -1 and 0 otherwise instead of an error).
template <typename C>
C int_pow_signed(C base, C e) {
  if constexpr (std::is_signed_v<C>) {
    if (e < 0) {
      if (base == C(1)) return C(1);
      if (base == C(-1)) return (e % 2 == 0) ? C(1) : C(-1);
      return C(0);
    }
  }
  return int_pow(base, static_cast<uint64_t>(e));
}

void pow_tensor_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  BinaryArgs b;
  if (!prepare_binary(ctx, args, 2, &b)) return;
  if (b.common == ScalarType::Bool) {
    ctx.fail(ErrorCode::InvalidType,
             "self and exponent have dtype bool: pow is not supported for a bool result");
    return;
  }
  if (!finish_binary(ctx, &b)) return;
  dispatch_compute(b.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      elementwise<C, 2>(*b.out, b.operands, [](C x, C y) { return static_cast<C>(std::pow(x, y)); });
    } else if constexpr (!std::is_same_v<C, bool>) {
      elementwise<C, 2>(*b.out, b.operands, [](C x, C y) { return int_pow_signed(x, y); });
    }
  });
}

void floor_divide_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  div(ctx, args, 2, Rounding::Floor);
}

void add_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  run_with_scalar_tensor(ctx, args, 1, 4, "other", add_out);
}
void sub_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  run_with_scalar_tensor(ctx, args, 1, 4, "other", sub_out);
}
void div_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  run_with_scalar_tensor(ctx, args, 1, 3, "other", div_out);
}
void div_scalar_mode_out(KernelContext& ctx, std::span<EValue*> args) {
  run_with_scalar_tensor(ctx, args, 1, 4, "other", div_mode_out);
}
void pow_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  // pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out)
  run_with_scalar_tensor(ctx, args, 0, 3, "self", pow_tensor_tensor_out, 1, "exponent");
}

// rsub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, out): other - alpha * self.
void rsub_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Scalar other;
  if (!scalar_arg(ctx, args, 1, "other", &other)) return;
  ScalarTensor st;
  if (!make_scalar_tensor(ctx, *self, other, "other", &st)) return;
  EValue* swapped[5] = {&st.value, args[0], args[2], args[3], args[4]};
  sub_out(ctx, std::span<EValue*>(swapped));
}

}  // namespace

void add_out(KernelContext& ctx, std::span<EValue*> args) { add_sub(ctx, args, false); }

void sub_out(KernelContext& ctx, std::span<EValue*> args) { add_sub(ctx, args, true); }

void mul_out(KernelContext& ctx, std::span<EValue*> args) {
  SameShapeFloat f;
  if (same_shape_float(args, 2, &f)) {
    flat_split(ctx.parallel(), f.numel, [&f](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) f.out[i] = f.self[i] * f.other[i];
    });
    return;
  }
  if (!check_num_args(ctx, args, 3)) return;
  BinaryArgs b;
  if (!prepare_binary(ctx, args, 2, &b) || !finish_binary(ctx, &b)) return;
  dispatch_compute(b.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    elementwise<C, 2>(
        *b.out, b.operands, [](C x, C y) { return mul_wrap(x, y); }, nullptr, ctx.parallel());
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
  if (!check_arithmetic_dtype(ctx, *self, "self") || !check_arithmetic_dtype(ctx, *out, "out")) return;
  ResultType rt;
  rt.add_tensor(*self);
  rt.add_scalar(other);
  ScalarType common;
  if (!pointwise::result_dtype(ctx, rt, "self and other", &common)) return;
  if (!pointwise::check_promoted_out(ctx, *out, common, "self and other")) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_compute(common, [&](auto tag) {
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
  if (!check_arithmetic_dtype(ctx, *self, "self") || !check_arithmetic_dtype(ctx, *out, "out")) return;
  ResultType rt;
  rt.add_tensor(*self);
  rt.add_scalar(exponent);
  ScalarType common;
  if (!pointwise::result_dtype(ctx, rt, "self and exponent", &common)) return;
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
  if (!pointwise::check_promoted_out(ctx, *out, common, "self and exponent")) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_compute(common, [&](auto tag) {
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
      {"aten::add.Scalar_out", add_scalar_out, kArithmeticDtypes},
      {"aten::add.out", add_out, kArithmeticDtypes},
      {"aten::div.Scalar_mode_out", div_scalar_mode_out, kNumericDtypes},
      {"aten::div.Scalar_out", div_scalar_out, kArithmeticDtypes},
      {"aten::div.out", div_out, kArithmeticDtypes},
      {"aten::div.out_mode", div_mode_out, kNumericDtypes},
      {"aten::floor_divide.out", floor_divide_out, kNumericDtypes},
      {"aten::mul.Scalar_out", mul_scalar_out, kArithmeticDtypes},
      {"aten::mul.out", mul_out, kArithmeticDtypes},
      {"aten::pow.Scalar_out", pow_scalar_out, kNumericDtypes},
      {"aten::pow.Tensor_Scalar_out", pow_tensor_scalar_out, kNumericDtypes},
      {"aten::pow.Tensor_Tensor_out", pow_tensor_tensor_out, kNumericDtypes},
      {"aten::rsub.Scalar_out", rsub_scalar_out, kNumericDtypes},
      {"aten::sub.Scalar_out", sub_scalar_out, kNumericDtypes},
      {"aten::sub.out", sub_out, kNumericDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
