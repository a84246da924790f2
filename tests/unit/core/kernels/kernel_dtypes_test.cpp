// Keeps the dtype claims of the kernel tables (KernelEntry::dtypes, shown by trace-run
// --list-kernels) true. Each probed kernel is called through the registry with its principal
// tensor (kernel.h) of every candidate dtype, the other arguments fixed and valid (small shapes,
// ones, int64 indices, all-true masks): a dtype it claims must succeed and write every element of
// its outs, one it does not claim must fail with InvalidType. So a table that claims too much or
// too little fails here, naming the kernel and the dtype.
//
// Probed (kProbes, 209 of the 233 kernels): the unary math, rounding, activation and logical
// kernels; the binary ones with two tensors of one dtype and their .Scalar forms; comparisons,
// bitwise, clamp, where, masked_fill; the reductions (sum, mean, prod, amax/amin, argmax/argmin,
// max/min, any, var, var_mean, cumsum), softmax, topk; every layout copy, pad, gather, scatter,
// index and masked kernel; creation and random ops (over their out); matmul, convolution,
// pooling, upsampling, grid sampling, distances and normalizations with small shapes that fit;
// quantize_per_tensor and dequantize_per_tensor.
// Not probed, because their arguments are too specific to build generically (gradients with
// masks, per-channel/per-token parameter tensors, packed quantized weights, CMSIS-NN
// multipliers), or their dtypes are outside the candidates (view_as_real takes complex): the list
// in the last test case below, also in DESIGN.md. Their claims rest on reading their checks.

#include <doctest/doctest.h>

#include <cstring>
#include <deque>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/kernels/portable_kernels.h"
#include "etkit/runtime/dtype_set.h"
#include "kernel_test_util.h"

namespace etkit::test {
namespace {

// The dtypes every probe tries: the computed ones, the 16-bit floats, and some the arithmetic
// kernels do not take (byte-moving ones do, dequantize takes uint16): uint16, a 16-byte
// complex128, a quantized qint8 and a float8.
constexpr ScalarType kCandidates[] = {
    ScalarType::Bool,          ScalarType::Byte,     ScalarType::Char,  ScalarType::Short,
    ScalarType::Int,           ScalarType::Long,     ScalarType::Half,  ScalarType::BFloat16,
    ScalarType::Float,         ScalarType::Double,   ScalarType::UInt16, ScalarType::ComplexDouble,
    ScalarType::QInt8,         ScalarType::Float8_e4m3fn,
};

// The tensors and arguments of one call.
class Call {
 public:
  // A tensor of `dtype` filled with ones (true for bool).
  HostTensor& in(ScalarType dtype, std::vector<int32_t> shape = {2, 3}) {
    HostTensor& h = tensors_.emplace_back(dtype, shape);
    for (int64_t i = 0; i < h.tensor().numel(); ++i) write_element_from_double(h.tensor(), i, 1.0);
    return h;
  }
  // A zero tensor of `dtype` (indices, a grid), not an out.
  HostTensor& zeros_of(ScalarType dtype, std::vector<int32_t> shape) {
    return tensors_.emplace_back(dtype, shape);
  }
  // A tensor of `dtype` to receive a result, each byte kSentinel until the kernel writes it.
  HostTensor& out(ScalarType dtype, std::vector<int32_t> shape = {2, 3}) {
    HostTensor& h = tensors_.emplace_back(dtype, shape);
    // An empty tensor may have no memory at all: memset(nullptr, ..., 0) is undefined (UBSan).
    if (h.tensor().nbytes() > 0) std::memset(h.tensor().data(), kSentinel, h.tensor().nbytes());
    outs_.push_back(&h);
    return h;
  }
  // The index of the first element of an out that still holds the sentinel in every byte (the
  // kernel admitted the dtype but did not write it), or -1.
  int64_t first_unwritten() const {
    for (const HostTensor* h : outs_) {
      const Tensor& t = h->tensor();
      const auto* bytes = static_cast<const uint8_t*>(t.data());
      const size_t size = element_size(t.dtype());
      for (int64_t i = 0; i < t.numel(); ++i) {
        bool untouched = true;
        for (size_t b = 0; b < size; ++b) {
          untouched = untouched && bytes[static_cast<size_t>(i) * size + b] == kSentinel;
        }
        if (untouched) return i;
      }
    }
    return -1;
  }
  Args args;

 private:
  static constexpr uint8_t kSentinel = 0xA5;
  std::deque<HostTensor> tensors_;
  std::vector<const HostTensor*> outs_;
};

// The out dtype PyTorch gives a floating operator of a `t` input: `t` if floating, else float32.
ScalarType floating_of(ScalarType t) { return is_floating_type(t) ? t : ScalarType::Float; }

// A scalar of `t`'s kind (bool, integer or floating), so that it does not promote the tensor.
Args& scalar_for(Args& a, ScalarType t) {
  if (t == ScalarType::Bool) return a.b(true);
  if (is_floating_type(t)) return a.d(1.0);
  return a.i(1);
}

using ProbeFn = KernelContext (*)(Call& c, ScalarType t, const char* name);

// (self, out), out of self's dtype.
KernelContext unary_same(Call& c, ScalarType t, const char* name) {
  return c.args.t(c.in(t)).t(c.out(t)).run(name);
}
// (self, out), out floating.
KernelContext unary_floating(Call& c, ScalarType t, const char* name) {
  return c.args.t(c.in(t)).t(c.out(floating_of(t))).run(name);
}
// (self, out), out bool.
KernelContext unary_bool(Call& c, ScalarType t, const char* name) {
  return c.args.t(c.in(t)).t(c.out(ScalarType::Bool)).run(name);
}
// (self, other, out), all of one dtype.
KernelContext binary_same(Call& c, ScalarType t, const char* name) {
  return c.args.t(c.in(t)).t(c.in(t)).t(c.out(t)).run(name);
}
// (self, other, alpha, out).
KernelContext binary_alpha(Call& c, ScalarType t, const char* name) {
  Args& a = c.args.t(c.in(t)).t(c.in(t));
  return scalar_for(a, t).t(c.out(t)).run(name);
}
// (self, other, out), out floating.
KernelContext binary_floating(Call& c, ScalarType t, const char* name) {
  return c.args.t(c.in(t)).t(c.in(t)).t(c.out(floating_of(t))).run(name);
}
// (self, other, out), out bool.
KernelContext binary_bool(Call& c, ScalarType t, const char* name) {
  return c.args.t(c.in(t)).t(c.in(t)).t(c.out(ScalarType::Bool)).run(name);
}
// (self, Scalar other, out).
KernelContext scalar_same(Call& c, ScalarType t, const char* name) {
  Args& a = c.args.t(c.in(t));
  return scalar_for(a, t).t(c.out(t)).run(name);
}
// (self, Scalar other, Scalar alpha, out).
KernelContext scalar_alpha(Call& c, ScalarType t, const char* name) {
  Args& a = c.args.t(c.in(t));
  scalar_for(a, t);
  return scalar_for(a, t).t(c.out(t)).run(name);
}
// (self, Scalar other, out), out bool.
KernelContext scalar_bool(Call& c, ScalarType t, const char* name) {
  Args& a = c.args.t(c.in(t));
  return scalar_for(a, t).t(c.out(ScalarType::Bool)).run(name);
}

// The out dtype of sum/prod/cumsum without a dtype argument: int64 for bool and integers.
ScalarType sum_of(ScalarType t) {
  return is_integral_type(t, true) && t != ScalarType::UInt16 ? ScalarType::Long : t;
}

struct Probe {
  const char* name;
  ProbeFn fn;
};

#define ETKIT_PROBE(NAME, BODY) \
  Probe { NAME, [](Call& c, ScalarType t, const char* name) -> KernelContext BODY }

const Probe kProbes[] = {
    // Unary: (self, out).
    {"aten::abs.out", unary_same},
    {"aten::bitwise_not.out", unary_same},
    {"aten::ceil.out", unary_same},
    {"aten::floor.out", unary_same},
    {"aten::round.out", unary_same},
    {"aten::trunc.out", unary_same},
    {"aten::sign.out", unary_same},
    {"aten::neg.out", unary_same},
    {"aten::relu.out", unary_same},
    {"aten::isinf.out", unary_bool},
    {"aten::isnan.out", unary_bool},
    {"aten::logical_not.out", unary_bool},
    {"aten::acos.out", unary_floating},
    {"aten::acosh.out", unary_floating},
    {"aten::asin.out", unary_floating},
    {"aten::asinh.out", unary_floating},
    {"aten::atan.out", unary_floating},
    {"aten::atanh.out", unary_floating},
    {"aten::cos.out", unary_floating},
    {"aten::cosh.out", unary_floating},
    {"aten::erf.out", unary_floating},
    {"aten::expm1.out", unary_floating},
    {"aten::log10.out", unary_floating},
    {"aten::log1p.out", unary_floating},
    {"aten::log2.out", unary_floating},
    {"aten::reciprocal.out", unary_floating},
    {"aten::sin.out", unary_floating},
    {"aten::sinh.out", unary_floating},
    {"aten::tan.out", unary_floating},
    {"aten::exp.out", unary_floating},
    {"aten::log.out", unary_floating},
    {"aten::rsqrt.out", unary_floating},
    {"aten::sqrt.out", unary_floating},
    {"aten::tanh.out", unary_floating},
    {"aten::sigmoid.out", unary_floating},
    {"aten::silu.out", unary_floating},
    ETKIT_PROBE("aten::logit.out", { return c.args.t(c.in(t)).none().t(c.out(floating_of(t))).run(name); }),
    ETKIT_PROBE("aten::gelu.out", { return c.args.t(c.in(t)).s("none").t(c.out(floating_of(t))).run(name); }),
    ETKIT_PROBE("aten::hardtanh.out", {
      Args& a = c.args.t(c.in(t));
      scalar_for(a, t);
      return scalar_for(a, t).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::elu.out", {
      return c.args.t(c.in(t)).d(1.0).d(1.0).d(1.0).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::leaky_relu.out", { return c.args.t(c.in(t)).d(0.01).t(c.out(t)).run(name); }),
    ETKIT_PROBE("aten::glu.out", { return c.args.t(c.in(t, {2, 4})).i(1).t(c.out(t, {2, 2})).run(name); }),

    // Binary, two tensors of one dtype.
    {"aten::add.out", binary_alpha},
    {"aten::sub.out", binary_alpha},
    {"aten::mul.out", binary_same},
    {"aten::div.out", binary_floating},
    ETKIT_PROBE("aten::div.out_mode", {
      return c.args.t(c.in(t)).t(c.in(t)).s("floor").t(c.out(t)).run(name);
    }),
    {"aten::floor_divide.out", binary_same},
    {"aten::pow.Tensor_Tensor_out", binary_same},
    {"aten::atan2.out", binary_floating},
    {"aten::fmod.Tensor_out", binary_same},
    {"aten::remainder.Tensor_out", binary_same},
    {"aten::maximum.out", binary_same},
    {"aten::minimum.out", binary_same},
    {"aten::bitwise_and.Tensor_out", binary_same},
    {"aten::bitwise_or.Tensor_out", binary_same},
    {"aten::bitwise_xor.Tensor_out", binary_same},
    {"aten::bitwise_left_shift.Tensor_out", binary_same},
    {"aten::bitwise_right_shift.Tensor_out", binary_same},
    {"aten::logical_and.out", binary_bool},
    {"aten::logical_or.out", binary_bool},
    {"aten::logical_xor.out", binary_bool},
    {"aten::eq.Tensor_out", binary_bool},
    {"aten::ne.Tensor_out", binary_bool},
    {"aten::ge.Tensor_out", binary_bool},
    {"aten::gt.Tensor_out", binary_bool},
    {"aten::le.Tensor_out", binary_bool},
    {"aten::lt.Tensor_out", binary_bool},
    ETKIT_PROBE("aten::clamp.Tensor_out", {
      return c.args.t(c.in(t)).t(c.in(t)).t(c.in(t)).t(c.out(t)).run(name);
    }),

    // A tensor and a Scalar.
    {"aten::add.Scalar_out", scalar_alpha},
    {"aten::sub.Scalar_out", scalar_alpha},
    {"aten::rsub.Scalar_out", scalar_alpha},
    {"aten::mul.Scalar_out", scalar_same},
    ETKIT_PROBE("aten::div.Scalar_out", {
      Args& a = c.args.t(c.in(t));
      return scalar_for(a, t).t(c.out(floating_of(t))).run(name);
    }),
    ETKIT_PROBE("aten::div.Scalar_mode_out", {
      Args& a = c.args.t(c.in(t));
      return scalar_for(a, t).s("floor").t(c.out(t)).run(name);
    }),
    {"aten::pow.Tensor_Scalar_out", scalar_same},
    ETKIT_PROBE("aten::pow.Scalar_out", {
      Args& a = c.args;
      return scalar_for(a, t).t(c.in(t)).t(c.out(t)).run(name);
    }),
    {"aten::fmod.Scalar_out", scalar_same},
    {"aten::remainder.Scalar_out", scalar_same},
    {"aten::bitwise_and.Scalar_out", scalar_same},
    {"aten::bitwise_or.Scalar_out", scalar_same},
    {"aten::bitwise_xor.Scalar_out", scalar_same},
    {"aten::bitwise_left_shift.Tensor_Scalar_out", scalar_same},
    {"aten::bitwise_right_shift.Tensor_Scalar_out", scalar_same},
    {"aten::eq.Scalar_out", scalar_bool},
    {"aten::ne.Scalar_out", scalar_bool},
    {"aten::ge.Scalar_out", scalar_bool},
    {"aten::gt.Scalar_out", scalar_bool},
    {"aten::le.Scalar_out", scalar_bool},
    {"aten::lt.Scalar_out", scalar_bool},
    ETKIT_PROBE("aten::clamp.out", {
      Args& a = c.args.t(c.in(t));
      scalar_for(a, t);
      return scalar_for(a, t).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::masked_fill.Scalar_out", {
      Args& a = c.args.t(c.in(t)).t(c.in(ScalarType::Bool));
      return scalar_for(a, t).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::where.self_out", {
      return c.args.t(c.in(ScalarType::Bool)).t(c.in(t)).t(c.in(t)).t(c.out(t)).run(name);
    }),

    // Reductions.
    ETKIT_PROBE("aten::sum.IntList_out", {
      return c.args.t(c.in(t)).ints({1}).b(false).none().t(c.out(sum_of(t), {2})).run(name);
    }),
    ETKIT_PROBE("aten::mean.out", {
      return c.args.t(c.in(t)).ints({1}).b(false).none().t(c.out(t, {2})).run(name);
    }),
    ETKIT_PROBE("aten::mean.dtype_out", {
      return c.args.t(c.in(t)).none().t(c.out(t, {})).run(name);
    }),
    ETKIT_PROBE("aten::prod.out", { return c.args.t(c.in(t)).none().t(c.out(sum_of(t), {})).run(name); }),
    ETKIT_PROBE("aten::prod.int_out", {
      return c.args.t(c.in(t)).i(1).b(false).none().t(c.out(sum_of(t), {2})).run(name);
    }),
    ETKIT_PROBE("aten::cumsum.out", {
      return c.args.t(c.in(t)).i(1).none().t(c.out(sum_of(t))).run(name);
    }),
    ETKIT_PROBE("aten::amax.out", { return c.args.t(c.in(t)).ints({1}).b(false).t(c.out(t, {2})).run(name); }),
    ETKIT_PROBE("aten::amin.out", { return c.args.t(c.in(t)).ints({1}).b(false).t(c.out(t, {2})).run(name); }),
    ETKIT_PROBE("aten::argmax.out", {
      return c.args.t(c.in(t)).i(1).b(false).t(c.out(ScalarType::Long, {2})).run(name);
    }),
    ETKIT_PROBE("aten::argmin.out", {
      return c.args.t(c.in(t)).i(1).b(false).t(c.out(ScalarType::Long, {2})).run(name);
    }),
    ETKIT_PROBE("aten::max.dim_max", {
      return c.args.t(c.in(t)).i(1).b(false).t(c.out(t, {2})).t(c.out(ScalarType::Long, {2})).run_outs(name, 2);
    }),
    ETKIT_PROBE("aten::min.dim_min", {
      return c.args.t(c.in(t)).i(1).b(false).t(c.out(t, {2})).t(c.out(ScalarType::Long, {2})).run_outs(name, 2);
    }),
    ETKIT_PROBE("aten::max.unary_out", { return c.args.t(c.in(t)).t(c.out(t, {})).run(name); }),
    ETKIT_PROBE("aten::min.unary_out", { return c.args.t(c.in(t)).t(c.out(t, {})).run(name); }),
    ETKIT_PROBE("aten::any.all_out", { return c.args.t(c.in(t)).t(c.out(ScalarType::Bool, {})).run(name); }),
    ETKIT_PROBE("aten::any.dims_out", {
      return c.args.t(c.in(t)).ints({1}).b(false).t(c.out(ScalarType::Bool, {2})).run(name);
    }),
    ETKIT_PROBE("aten::any.out", {
      return c.args.t(c.in(t)).i(1).b(false).t(c.out(ScalarType::Bool, {2})).run(name);
    }),
    ETKIT_PROBE("aten::var.out", {
      return c.args.t(c.in(t)).ints({1}).b(true).b(false).t(c.out(t, {2})).run(name);
    }),
    ETKIT_PROBE("aten::var.correction_out", {
      return c.args.t(c.in(t)).ints({1}).none().b(false).t(c.out(t, {2})).run(name);
    }),
    ETKIT_PROBE("aten::var_mean.correction_out", {
      return c.args.t(c.in(t)).ints({1}).none().b(false).t(c.out(t, {2})).t(c.out(t, {2})).run_outs(name, 2);
    }),
    ETKIT_PROBE("aten::_softmax.out", { return c.args.t(c.in(t)).i(1).b(false).t(c.out(t)).run(name); }),
    ETKIT_PROBE("aten::_log_softmax.out", { return c.args.t(c.in(t)).i(1).b(false).t(c.out(t)).run(name); }),
    ETKIT_PROBE("aten::topk.values", {
      return c.args.t(c.in(t)).i(2).i(1).b(true).b(true).t(c.out(t, {2, 2})).t(c.out(ScalarType::Long, {2, 2})).run_outs(name, 2);
    }),

    // Layout copies.
    {"aten::alias_copy.out", unary_same},
    {"aten::detach_copy.out", unary_same},
    {"aten::lift_fresh_copy.out", unary_same},
    {"aten::_conj_physical.out", unary_same},
    ETKIT_PROBE("aten::t_copy.out", { return c.args.t(c.in(t)).t(c.out(t, {3, 2})).run(name); }),
    ETKIT_PROBE("aten::clone.out", { return c.args.t(c.in(t)).none().t(c.out(t)).run(name); }),
    ETKIT_PROBE("dim_order_ops::_clone_dim_order.out", {
      return c.args.t(c.in(t)).b(false).none().t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::_to_copy.out", { return c.args.t(c.in(t)).b(false).none().t(c.out(t)).run(name); }),
    ETKIT_PROBE("dim_order_ops::_to_dim_order_copy.out", {
      return c.args.t(c.in(t)).b(false).none().t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::copy.out", { return c.args.t(c.in(t)).t(c.in(t)).b(false).t(c.out(t)).run(name); }),
    ETKIT_PROBE("aten::view_copy.out", { return c.args.t(c.in(t)).ints({3, 2}).t(c.out(t, {3, 2})).run(name); }),
    ETKIT_PROBE("aten::permute_copy.out", { return c.args.t(c.in(t)).ints({1, 0}).t(c.out(t, {3, 2})).run(name); }),
    ETKIT_PROBE("aten::expand_copy.out", {
      return c.args.t(c.in(t)).ints({2, 2, 3}).b(false).t(c.out(t, {2, 2, 3})).run(name);
    }),
    ETKIT_PROBE("aten::select_copy.int_out", { return c.args.t(c.in(t)).i(0).i(1).t(c.out(t, {3})).run(name); }),
    ETKIT_PROBE("aten::slice_copy.Tensor_out", {
      return c.args.t(c.in(t)).i(1).i(0).i(2).i(1).t(c.out(t, {2, 2})).run(name);
    }),
    ETKIT_PROBE("aten::squeeze_copy.dims_out", {
      return c.args.t(c.in(t, {1, 3})).ints({0}).t(c.out(t, {3})).run(name);
    }),
    ETKIT_PROBE("aten::squeeze_copy.dim_out", { return c.args.t(c.in(t, {1, 3})).i(0).t(c.out(t, {3})).run(name); }),
    ETKIT_PROBE("aten::unsqueeze_copy.out", { return c.args.t(c.in(t)).i(0).t(c.out(t, {1, 2, 3})).run(name); }),
    ETKIT_PROBE("aten::transpose_copy.int_out", { return c.args.t(c.in(t)).i(0).i(1).t(c.out(t, {3, 2})).run(name); }),
    ETKIT_PROBE("aten::flip.out", { return c.args.t(c.in(t)).ints({1}).t(c.out(t)).run(name); }),
    ETKIT_PROBE("aten::roll.out", { return c.args.t(c.in(t)).ints({1}).ints({1}).t(c.out(t)).run(name); }),
    ETKIT_PROBE("aten::repeat.out", { return c.args.t(c.in(t)).ints({2, 1}).t(c.out(t, {4, 3})).run(name); }),
    ETKIT_PROBE("aten::tril.out", { return c.args.t(c.in(t)).i(0).t(c.out(t)).run(name); }),
    ETKIT_PROBE("aten::narrow_copy.out", { return c.args.t(c.in(t)).i(1).i(0).i(2).t(c.out(t, {2, 2})).run(name); }),
    ETKIT_PROBE("aten::diagonal_copy.out", { return c.args.t(c.in(t)).i(0).i(0).i(1).t(c.out(t, {2})).run(name); }),
    ETKIT_PROBE("aten::unfold_copy.out", { return c.args.t(c.in(t)).i(1).i(2).i(1).t(c.out(t, {2, 2, 2})).run(name); }),
    ETKIT_PROBE("aten::as_strided_copy.out", {
      return c.args.t(c.in(t)).ints({3, 2}).ints({1, 3}).none().t(c.out(t, {3, 2})).run(name);
    }),
    ETKIT_PROBE("aten::constant_pad_nd.out", {
      Args& a = c.args.t(c.in(t)).ints({1, 1});
      return scalar_for(a, t).t(c.out(t, {2, 5})).run(name);
    }),
    ETKIT_PROBE("aten::cat.out", {
      HostTensor& x = c.in(t);
      HostTensor& y = c.in(t);
      return c.args.tensors({&x, &y}).i(0).t(c.out(t, {4, 3})).run(name);
    }),
    ETKIT_PROBE("aten::stack.out", {
      HostTensor& x = c.in(t);
      HostTensor& y = c.in(t);
      return c.args.tensors({&x, &y}).i(0).t(c.out(t, {2, 2, 3})).run(name);
    }),
    ETKIT_PROBE("aten::split_copy.Tensor_out", {
      HostTensor& a = c.out(t, {1, 3});
      HostTensor& b = c.out(t, {1, 3});
      return c.args.t(c.in(t)).i(1).i(0).tensors({&a, &b}).run(name);
    }),
    ETKIT_PROBE("aten::split_with_sizes_copy.out", {
      HostTensor& a = c.out(t, {1, 3});
      HostTensor& b = c.out(t, {1, 3});
      return c.args.t(c.in(t)).ints({1, 1}).i(0).tensors({&a, &b}).run(name);
    }),
    ETKIT_PROBE("aten::unbind_copy.int_out", {
      HostTensor& a = c.out(t, {3});
      HostTensor& b = c.out(t, {3});
      return c.args.t(c.in(t)).i(0).tensors({&a, &b}).run(name);
    }),
    ETKIT_PROBE("aten::slice_scatter.out", {
      return c.args.t(c.in(t)).t(c.in(t, {2, 1})).i(1).i(0).i(1).i(1).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::select_scatter.out", {
      return c.args.t(c.in(t)).t(c.in(t, {3})).i(0).i(0).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::fill.Scalar_out", {
      Args& a = c.args.t(c.in(t));
      return scalar_for(a, t).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::fill.Tensor_out", { return c.args.t(c.in(t)).t(c.in(t, {})).t(c.out(t)).run(name); }),
    ETKIT_PROBE("aten::full_like.out", {
      Args& a = c.args.t(c.in(t));
      return scalar_for(a, t).none().t(c.out(t)).run(name);
    }),

    // Byte copies with their own conventions.
    ETKIT_PROBE("aten::copy_", {
      HostTensor& self = c.out(t);
      return c.args.t(self).t(c.in(t)).b(false).t(self).run_raw(name);
    }),
    {"et_copy::_d2h_copy.out", unary_same},
    {"et_copy::_h2d_copy.out", unary_same},
    ETKIT_PROBE("dim_order_ops::_empty_dim_order.out", {
      return c.args.ints({2, 3}).none().t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::pixel_shuffle.out", {
      return c.args.t(c.in(t, {1, 4, 1, 1})).i(2).t(c.out(t, {1, 1, 2, 2})).run(name);
    }),
    ETKIT_PROBE("aten::pixel_unshuffle.out", {
      return c.args.t(c.in(t, {1, 1, 2, 2})).i(2).t(c.out(t, {1, 4, 1, 1})).run(name);
    }),
    ETKIT_PROBE("aten::reflection_pad1d.out", {
      return c.args.t(c.in(t, {1, 3})).ints({1, 1}).t(c.out(t, {1, 5})).run(name);
    }),
    ETKIT_PROBE("aten::reflection_pad2d.out", {
      return c.args.t(c.in(t, {1, 2, 3})).ints({1, 1, 1, 1}).t(c.out(t, {1, 4, 5})).run(name);
    }),
    ETKIT_PROBE("aten::reflection_pad3d.out", {
      return c.args.t(c.in(t, {1, 2, 2, 3})).ints({1, 1, 1, 1, 1, 1}).t(c.out(t, {1, 4, 4, 5})).run(name);
    }),
    ETKIT_PROBE("aten::replication_pad1d.out", {
      return c.args.t(c.in(t, {1, 3})).ints({1, 1}).t(c.out(t, {1, 5})).run(name);
    }),
    ETKIT_PROBE("aten::replication_pad2d.out", {
      return c.args.t(c.in(t, {1, 2, 3})).ints({1, 1, 1, 1}).t(c.out(t, {1, 4, 5})).run(name);
    }),
    ETKIT_PROBE("aten::replication_pad3d.out", {
      return c.args.t(c.in(t, {1, 2, 2, 3})).ints({1, 1, 1, 1, 1, 1}).t(c.out(t, {1, 4, 4, 5})).run(name);
    }),

    // Indexing: the index tensors are int64 zeros, masks all true.
    ETKIT_PROBE("aten::gather.out", {
      return c.args.t(c.in(t)).i(1).t(c.zeros_of(ScalarType::Long, {2, 3})).b(false).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::index_select.out", {
      return c.args.t(c.in(t)).i(0).t(c.zeros_of(ScalarType::Long, {2})).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::index.Tensor_out", {
      HostTensor& index = c.zeros_of(ScalarType::Long, {2});
      return c.args.t(c.in(t)).optional_tensors({&index}).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::index_put.out", {
      HostTensor& index = c.zeros_of(ScalarType::Long, {2});
      return c.args.t(c.in(t)).optional_tensors({&index}).t(c.in(t)).b(false).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::index_put_", {
      HostTensor& index = c.zeros_of(ScalarType::Long, {2});
      HostTensor& self = c.in(t);
      return c.args.t(self).optional_tensors({&index}).t(c.in(t)).b(false).t(self).run_raw(name);
    }),
    ETKIT_PROBE("aten::scatter.value_out", {
      Args& a = c.args.t(c.in(t)).i(1).t(c.zeros_of(ScalarType::Long, {2, 3}));
      return scalar_for(a, t).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::scatter.src_out", {
      return c.args.t(c.in(t)).i(1).t(c.zeros_of(ScalarType::Long, {2, 3})).t(c.in(t)).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::scatter_add.out", {
      return c.args.t(c.in(t)).i(1).t(c.zeros_of(ScalarType::Long, {2, 3})).t(c.in(t)).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::embedding.out", {
      return c.args.t(c.in(t)).t(c.zeros_of(ScalarType::Long, {2})).i(-1).b(false).b(false).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::repeat_interleave.Tensor_out", {
      return c.args.t(c.in(t, {2})).none().t(c.out(t, {2})).run(name);
    }),
    ETKIT_PROBE("aten::masked_select.out", {
      return c.args.t(c.in(t)).t(c.in(ScalarType::Bool)).t(c.out(t, {6})).run(name);
    }),
    ETKIT_PROBE("aten::masked_scatter.out", {
      return c.args.t(c.in(t)).t(c.in(ScalarType::Bool)).t(c.in(t)).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::nonzero.out", { return c.args.t(c.in(t)).t(c.out(ScalarType::Long, {6, 2})).run(name); }),

    // Random (rand, randn: over out).
    ETKIT_PROBE("aten::rand.out", { return c.args.ints({2, 3}).t(c.out(t)).run(name); }),
    ETKIT_PROBE("aten::randn.out", { return c.args.ints({2, 3}).t(c.out(t)).run(name); }),
    ETKIT_PROBE("aten::native_dropout.out", {
      return c.args.t(c.in(t)).d(0.5).b(true).t(c.out(t)).t(c.out(ScalarType::Bool)).run_outs(name, 2);
    }),

    // Matrix products, windows and normalizations, with small shapes that fit.
    ETKIT_PROBE("aten::mm.out", { return c.args.t(c.in(t)).t(c.in(t, {3, 2})).t(c.out(t, {2, 2})).run(name); }),
    ETKIT_PROBE("aten::bmm.out", {
      return c.args.t(c.in(t, {1, 2, 3})).t(c.in(t, {1, 3, 2})).t(c.out(t, {1, 2, 2})).run(name);
    }),
    ETKIT_PROBE("aten::addmm.out", {
      Args& a = c.args.t(c.in(t, {2, 2})).t(c.in(t)).t(c.in(t, {3, 2}));
      scalar_for(a, t);
      return scalar_for(a, t).t(c.out(t, {2, 2})).run(name);
    }),
    ETKIT_PROBE("aten::convolution.out", {
      return c.args.t(c.in(t, {1, 1, 3, 3})).t(c.in(t, {1, 1, 2, 2})).none().ints({1, 1}).ints({0, 0})
          .ints({1, 1}).b(false).ints({0, 0}).i(1).t(c.out(t, {1, 1, 2, 2})).run(name);
    }),
    ETKIT_PROBE("aten::avg_pool2d.out", {
      return c.args.t(c.in(t, {1, 1, 2, 2})).ints({2, 2}).ints({2, 2}).ints({0, 0}).b(false).b(true)
          .none().t(c.out(t, {1, 1, 1, 1})).run(name);
    }),
    ETKIT_PROBE("aten::_adaptive_avg_pool2d.out", {
      return c.args.t(c.in(t, {1, 1, 2, 2})).ints({1, 1}).t(c.out(t, {1, 1, 1, 1})).run(name);
    }),
    ETKIT_PROBE("aten::max_pool2d_with_indices.out", {
      return c.args.t(c.in(t, {1, 1, 2, 2})).ints({2, 2}).ints({2, 2}).ints({0, 0}).ints({1, 1})
          .b(false).t(c.out(t, {1, 1, 1, 1})).t(c.out(ScalarType::Long, {1, 1, 1, 1})).run_outs(name, 2);
    }),
    ETKIT_PROBE("aten::upsample_nearest2d.vec_out", {
      return c.args.t(c.in(t, {1, 1, 2, 2})).ints({4, 4}).none().t(c.out(t, {1, 1, 4, 4})).run(name);
    }),
    ETKIT_PROBE("aten::upsample_bilinear2d.vec_out", {
      return c.args.t(c.in(t, {1, 1, 2, 2})).ints({4, 4}).b(false).none().t(c.out(t, {1, 1, 4, 4})).run(name);
    }),
    ETKIT_PROBE("aten::_upsample_bilinear2d_aa.out", {
      return c.args.t(c.in(t, {1, 1, 2, 2})).ints({4, 4}).b(false).none().none().t(c.out(t, {1, 1, 4, 4})).run(name);
    }),
    ETKIT_PROBE("aten::grid_sampler_2d.out", {
      return c.args.t(c.in(t, {1, 1, 2, 2})).t(c.zeros_of(t, {1, 2, 2, 2})).i(0).i(0).b(false)
          .t(c.out(t, {1, 1, 2, 2})).run(name);
    }),
    ETKIT_PROBE("aten::_cdist_forward.out", {
      return c.args.t(c.in(t)).t(c.in(t)).d(2.0).none().t(c.out(t, {2, 2})).run(name);
    }),
    ETKIT_PROBE("aten::_pdist_forward.out", { return c.args.t(c.in(t, {3, 2})).d(2.0).t(c.out(t, {3})).run(name); }),
    ETKIT_PROBE("aten::native_layer_norm.out", {
      return c.args.t(c.in(t)).ints({3}).none().none().d(1e-5).t(c.out(t)).t(c.out(t, {2, 1}))
          .t(c.out(t, {2, 1})).run_outs(name, 3);
    }),
    ETKIT_PROBE("aten::native_group_norm.out", {
      return c.args.t(c.in(t, {1, 2, 3})).none().none().i(1).i(2).i(3).i(1).d(1e-5)
          .t(c.out(t, {1, 2, 3})).t(c.out(t, {1, 1})).t(c.out(t, {1, 1})).run_outs(name, 3);
    }),
    ETKIT_PROBE("aten::_native_batch_norm_legit_no_training.out", {
      return c.args.t(c.in(t, {1, 2, 3})).none().none().t(c.zeros_of(t, {2})).t(c.in(t, {2})).d(0.1)
          .d(1e-5).t(c.out(t, {1, 2, 3})).t(c.out(t, {0})).t(c.out(t, {0})).run_outs(name, 3);
    }),
    ETKIT_PROBE("aten::_native_batch_norm_legit.out", {
      return c.args.t(c.in(t, {1, 2, 3})).none().none().t(c.zeros_of(t, {2})).t(c.in(t, {2})).b(true)
          .d(0.1).d(1e-5).t(c.out(t, {1, 2, 3})).t(c.out(t, {2})).t(c.out(t, {2})).run_outs(name, 3);
    }),
    ETKIT_PROBE("aten::_native_batch_norm_legit.no_stats_out", {
      return c.args.t(c.in(t, {1, 2, 3})).none().none().b(true).d(0.1).d(1e-5).t(c.out(t, {1, 2, 3}))
          .t(c.out(t, {2})).t(c.out(t, {2})).run_outs(name, 3);
    }),

    // Quantization: the principal tensor is the float input of a quantize, the integer input of
    // a dequantize (whose dtype argument names it).
    ETKIT_PROBE("quantized_decomposed::quantize_per_tensor.out", {
      return c.args.t(c.in(t)).d(0.5).i(0).i(-128).i(127).i(static_cast<int64_t>(ScalarType::Char))
          .t(c.out(ScalarType::Char)).run(name);
    }),
    ETKIT_PROBE("quantized_decomposed::dequantize_per_tensor.out", {
      return c.args.t(c.in(t)).d(0.5).i(0).i(0).i(1).i(static_cast<int64_t>(t)).none()
          .t(c.out(ScalarType::Float)).run(name);
    }),

    // No tensor input: the dtype is out's.
    ETKIT_PROBE("aten::full.out", {
      Args& a = c.args.ints({2, 3});
      return scalar_for(a, t).t(c.out(t)).run(name);
    }),
    ETKIT_PROBE("aten::zeros.out", { return c.args.ints({2, 3}).t(c.out(t)).run(name); }),
    ETKIT_PROBE("aten::ones.out", { return c.args.ints({2, 3}).t(c.out(t)).run(name); }),
    ETKIT_PROBE("aten::empty.out", { return c.args.ints({2, 3}).none().t(c.out(t)).run(name); }),
    ETKIT_PROBE("aten::scalar_tensor.out", {
      Args& a = c.args;
      return scalar_for(a, t).t(c.out(t, {})).run(name);
    }),
    ETKIT_PROBE("aten::arange.out", {
      Args& a = c.args;
      return scalar_for(a, t).t(c.out(t, {1})).run(name);
    }),
    ETKIT_PROBE("aten::arange.start_out", {
      Args& a = c.args.i(0);
      return scalar_for(a, t).i(1).t(c.out(t, {1})).run(name);
    }),
};

#undef ETKIT_PROBE

const KernelEntry* find_entry(std::string_view name) {
  for (const KernelEntry& e : portable_kernels()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("every portable kernel states its dtypes") {
  for (const KernelEntry& e : portable_kernels()) {
    CHECK_MESSAGE(!e.dtypes.empty(), (std::string(e.name) + " states no dtypes"));
  }
}

TEST_CASE("a kernel's claimed dtypes are the ones it takes") {
  for (const Probe& p : kProbes) {
    const std::string name = p.name;
    const KernelEntry* entry = find_entry(name);
    REQUIRE_MESSAGE(entry != nullptr, (name + " is not registered"));
    // The kernels that write nothing by design.
    const bool writes = name != "aten::empty.out" && name != "dim_order_ops::_empty_dim_order.out";
    for (ScalarType t : kCandidates) {
      Call call;
      const KernelContext ctx = p.fn(call, t, p.name);
      const std::string dtype = scalar_type_name(t);
      if (entry->dtypes.contains(t)) {
        CHECK_MESSAGE(!ctx.failed(), (name + " claims " + dtype + " but the call fails: " +
                                      (ctx.failed() ? ctx.error().message() : "")));
        // A dtype its checks admit must also be one its loop writes.
        CHECK_MESSAGE((ctx.failed() || !writes || call.first_unwritten() < 0),
                      (name + " takes " + dtype + " but leaves element " +
                       std::to_string(call.first_unwritten()) + " of an out unwritten"));
      } else if (ctx.failed()) {
        CHECK_MESSAGE(ctx.error().code() == ErrorCode::InvalidType,
                      (name + " does not claim " + dtype +
                       " and fails with another error than InvalidType: " +
                       ctx.error().message()));
      } else {
        FAIL_CHECK((name + " does not claim " + dtype + " but the call succeeds"));
      }
    }
  }
}

TEST_CASE("kernels the dtype probe does not cover") {
  // Their arguments are too specific for a generic probe; their claims rest on reading their
  // code. A kernel added to the registry must get a probe above or a place here (and in
  // DESIGN.md), on purpose.
  const std::set<std::string> unprobed = {
      "aten::convolution_backward.out",
      "aten::max_pool2d_with_indices_backward.grad_input",
      "aten::view_as_real_copy.out",
      "cortex_m::dequantize_per_tensor.out",
      "cortex_m::pad.out",
      "cortex_m::quantize_per_tensor.out",
      "cortex_m::quantized_avg_pool2d.out",
      "cortex_m::quantized_conv2d.out",
      "cortex_m::quantized_depthwise_conv2d.out",
      "cortex_m::quantized_linear.out",
      "quantized_decomposed::choose_qparams.Tensor_out",
      "quantized_decomposed::choose_qparams_per_token_asymmetric.out",
      "quantized_decomposed::dequantize_per_channel.out",
      "quantized_decomposed::dequantize_per_tensor.Tensor_out",
      "quantized_decomposed::dequantize_per_token.out",
      "quantized_decomposed::embedding_2bit.dtype_out",
      "quantized_decomposed::embedding_2bit.out",
      "quantized_decomposed::embedding_4bit.dtype_out",
      "quantized_decomposed::embedding_4bit.out",
      "quantized_decomposed::embedding_byte.dtype_out",
      "quantized_decomposed::embedding_byte.out",
      "quantized_decomposed::quantize_per_channel.out",
      "quantized_decomposed::quantize_per_tensor.Tensor_out",
      "quantized_decomposed::quantize_per_token.out",
  };
  std::set<std::string> probed;
  for (const Probe& p : kProbes) {
    CHECK_MESSAGE(probed.emplace(p.name).second, (std::string(p.name) + " has two probes"));
    CHECK_MESSAGE(unprobed.count(p.name) == 0,
                  (std::string(p.name) + " has a probe and is on the unprobed list"));
  }
  for (const KernelEntry& e : portable_kernels()) {
    const std::string name(e.name);
    CHECK_MESSAGE(probed.count(name) + unprobed.count(name) == 1,
                  (name + " has no dtype probe; add one, or add it to the unprobed list"));
  }
}

}  // namespace etkit::test
