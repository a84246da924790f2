#pragma once

// What the quantized_decomposed kernels share (quantize_ops.cpp, choose_qparams_ops.cpp; one
// family, registered by quantize_kernels()): their `float` and `ScalarType` arguments, the integer dtypes a quantized value may have and the
// check of a quant_min/quant_max pair against them, a float narrowing without undefined
// behaviour, and the token count of the per-token operators. Nothing allocates.

#include <cfloat>
#include <cstdint>
#include <limits>
#include <span>

#include "etkit/kernels/kernel_util.h"

namespace etkit::kernels::quant {

/// A `float` schema argument: a Double value (an Int is accepted too, a Bool is not).
inline bool double_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
                       double* out) {
  Scalar s;
  if (!scalar_arg(ctx, args, i, name, &s)) return false;
  if (s.is_bool()) {
    ctx.fail(ErrorCode::InvalidType, "%s is a bool, expected a double", name);
    return false;
  }
  *out = s.to<double>();
  return true;
}

/// A `ScalarType` schema argument (not optional).
inline bool dtype_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
                      ScalarType* out) {
  bool present = false;
  if (!optional_dtype_arg(ctx, args, i, name, &present, out)) return false;
  if (!present) {
    ctx.fail(ErrorCode::InvalidType, "%s is none, expected a dtype", name);
    return false;
  }
  return true;
}

/// The integer dtypes a quantized value may have, with their ranges; false for any other dtype.
inline bool quantized_range(ScalarType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case ScalarType::Byte: *lo = 0; *hi = 255; return true;
    case ScalarType::Char: *lo = -128; *hi = 127; return true;
    case ScalarType::Short: *lo = -32768; *hi = 32767; return true;
    case ScalarType::UInt16: *lo = 0; *hi = 65535; return true;
    case ScalarType::Int:
      *lo = std::numeric_limits<int32_t>::min();
      *hi = std::numeric_limits<int32_t>::max();
      return true;
    default: return false;
  }
}

/// Calls `f(TypeTag<Q>{})` for the C++ type of quantized dtype `t` (uint8, int8, int16, uint16,
/// int32); false for any other. uint16 is a dtype only quantized values have in etkit.
template <typename F>
bool dispatch_quantized(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Byte: f(TypeTag<uint8_t>{}); return true;
    case ScalarType::Char: f(TypeTag<int8_t>{}); return true;
    case ScalarType::Short: f(TypeTag<int16_t>{}); return true;
    case ScalarType::UInt16: f(TypeTag<uint16_t>{}); return true;
    case ScalarType::Int: f(TypeTag<int32_t>{}); return true;
    default: return false;
  }
}

/// Calls `f(TypeTag<Q>{}, TypeTag<C>{})` for quantized dtype `q` and arithmetic dtype `c`
/// (Half and BFloat16 as float); false if either is not one.
template <typename F>
bool dispatch_quantized_and(ScalarType q, ScalarType c, F&& f) {
  bool ok = false;
  dispatch_quantized(q, [&](auto q_tag) {
    ok = dispatch_compute(c, [&](auto c_tag) { f(q_tag, c_tag); });
  });
  return ok;
}

/// Fails (InvalidType) unless `dtype` is a quantized dtype, then (InvalidArgument) unless
/// quant_min <= quant_max (quant_min < quant_max with `strict`) within its range.
inline bool check_quant_range(KernelContext& ctx, ScalarType dtype, int64_t quant_min,
                              int64_t quant_max, bool strict = false) {
  int64_t lo = 0;
  int64_t hi = 0;
  if (!quantized_range(dtype, &lo, &hi)) {
    ctx.fail(ErrorCode::InvalidType,
             "dtype is %s, expected one of uint8, int8, int16, uint16, int32",
             scalar_type_name(dtype));
    return false;
  }
  if (quant_min < lo || quant_max > hi || quant_min > quant_max ||
      (strict && quant_min == quant_max)) {
    ctx.fail(ErrorCode::InvalidArgument,
             "quant_min %lld and quant_max %lld do not make a range within %s [%lld, %lld]%s",
             static_cast<long long>(quant_min), static_cast<long long>(quant_max),
             scalar_type_name(dtype), static_cast<long long>(lo), static_cast<long long>(hi),
             strict ? " with quant_min < quant_max" : "");
    return false;
  }
  return true;
}

/// Fails (InvalidType) unless `t`, the float input of a quantize op, is float16, bfloat16,
/// float32 or float64 (ExecuTorch takes each; the 16-bit ones are read as float32, exactly).
inline bool check_quantize_input(KernelContext& ctx, const Tensor& t, const char* name) {
  if (!is_floating_type(t.dtype())) {
    ctx.fail(ErrorCode::InvalidType,
             "%s has dtype %s, expected float16, bfloat16, float32 or float64", name,
             scalar_type_name(t.dtype()));
    return false;
  }
  return true;
}

/// Calls `f(store)`, where `store(i, v)` writes float `v` into element `i` of `out`'s memory:
/// `out` has a floating dtype (checked by the caller); Half and BFloat16 round to nearest even.
template <typename F>
void with_float_store(Tensor& out, F&& f) {
  switch (out.dtype()) {
    case ScalarType::Double: {
      double* o = out.data_as<double>();
      f([o](int64_t i, float v) { o[i] = static_cast<double>(v); });
      return;
    }
    case ScalarType::Half: {
      uint16_t* o = out.data_as<uint16_t>();
      f([o](int64_t i, float v) { o[i] = float_to_half_bits(v); });
      return;
    }
    case ScalarType::BFloat16: {
      uint16_t* o = out.data_as<uint16_t>();
      f([o](int64_t i, float v) { o[i] = float_to_bfloat16_bits(v); });
      return;
    }
    default: {
      float* o = out.data_as<float>();
      f([o](int64_t i, float v) { o[i] = v; });
      return;
    }
  }
}

/// `v` as a float, infinite where it is beyond float's range (a plain conversion of such a
/// double is undefined behaviour); NaN stays NaN.
inline float narrow_to_float(double v) {
  if (v > FLT_MAX) return std::numeric_limits<float>::infinity();
  if (v < -FLT_MAX) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(v);
}

/// The number of tokens of `input` (the product of every size but the last; 1 for a rank-0 or
/// rank-1 tensor). Fails (InvalidArgument) if the product overflows int64, which a tensor whose
/// last size is 0 may do.
inline bool token_count(KernelContext& ctx, const Tensor& input, int64_t* out) {
  int64_t n = 1;
  for (int d = 0; d + 1 < input.dim(); ++d) {
    if (__builtin_mul_overflow(n, static_cast<int64_t>(input.size(d)), &n)) {
      ctx.fail(ErrorCode::InvalidArgument, "input's token count (every size but the last) "
               "overflows int64");
      return false;
    }
  }
  *out = n;
  return true;
}

/// The number of elements of each token of `input` (its last size; 1 for rank 0).
inline int64_t token_size(const Tensor& input) {
  return input.dim() == 0 ? 1 : input.size(input.dim() - 1);
}

// The kernels of choose_qparams_ops.cpp, for quantize_kernels()' table.
void choose_qparams_tensor_out(KernelContext& ctx, std::span<EValue*> args);
void choose_qparams_per_token_asymmetric_out(KernelContext& ctx, std::span<EValue*> args);

}  // namespace etkit::kernels::quant
