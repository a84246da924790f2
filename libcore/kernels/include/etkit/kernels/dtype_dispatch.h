#pragma once

// Dtype dispatch of the portable kernels: the dtypes they compute with, their C++ types, a
// dispatcher that calls a generic lambda with the right type, and typed loads. Half and BFloat16
// have no C++ type here: the kernels that take them compute in float32 (`dispatch_compute`,
// float16.h) and read them with `load_as`.

#include <cstdint>
#include <type_traits>

#include "etkit/kernels/scalar.h"
#include "etkit/runtime/half.h"
#include "etkit/runtime/scalar_type.h"

namespace etkit::kernels {

// ---------------------------------------------------------------------------------------------
// Dtypes etkit computes with: Bool, Byte, Char, Short, Int, Long, Float, Double.

template <typename T>
struct TypeTag {
  using type = T;
};

/// The C++ type of a computed dtype. Bool is stored as one byte holding 0 or 1.
template <typename T>
constexpr ScalarType dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return ScalarType::Bool;
  else if constexpr (std::is_same_v<T, uint8_t>) return ScalarType::Byte;
  else if constexpr (std::is_same_v<T, int8_t>) return ScalarType::Char;
  else if constexpr (std::is_same_v<T, int16_t>) return ScalarType::Short;
  else if constexpr (std::is_same_v<T, int32_t>) return ScalarType::Int;
  else if constexpr (std::is_same_v<T, int64_t>) return ScalarType::Long;
  else if constexpr (std::is_same_v<T, float>) return ScalarType::Float;
  else if constexpr (std::is_same_v<T, uint16_t>) return ScalarType::UInt16;  // quantized values
  else return ScalarType::Double;
}

/// True for the dtypes the arithmetic kernels compute with.
bool is_computed_dtype(ScalarType t);

/// Calls `f(TypeTag<T>{})` for the C++ type of `t`; returns false (and calls nothing) if `t` is
/// not a computed dtype.
template <typename F>
inline bool dispatch_dtype(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Bool: f(TypeTag<bool>{}); return true;
    case ScalarType::Byte: f(TypeTag<uint8_t>{}); return true;
    case ScalarType::Char: f(TypeTag<int8_t>{}); return true;
    case ScalarType::Short: f(TypeTag<int16_t>{}); return true;
    case ScalarType::Int: f(TypeTag<int32_t>{}); return true;
    case ScalarType::Long: f(TypeTag<int64_t>{}); return true;
    case ScalarType::Float: f(TypeTag<float>{}); return true;
    case ScalarType::Double: f(TypeTag<double>{}); return true;
    default: return false;
  }
}

/// Like `dispatch_dtype`, with Half and BFloat16 computed in float32: the type a kernel computes
/// a tensor of dtype `t` in. A kernel that takes it must store through elementwise/map_to (which
/// round into a 16-bit out) or narrow_float16 itself.
template <typename F>
inline bool dispatch_compute(ScalarType t, F&& f) {
  if (is_float16_type(t)) {
    f(TypeTag<float>{});
    return true;
  }
  return dispatch_dtype(t, static_cast<F&&>(f));
}

/// True for the dtypes `dispatch_compute` takes: the computed ones, Half and BFloat16.
inline bool is_arithmetic_dtype(ScalarType t) {
  return is_float16_type(t) || is_computed_dtype(t);
}

/// Reads element `index` of memory of dtype `t` (an arithmetic dtype) as `C`.
template <typename C>
inline C load_as(const void* base, ScalarType t, int64_t index) {
  switch (t) {
    case ScalarType::Bool: return convert<C>(static_cast<const uint8_t*>(base)[index] != 0);
    case ScalarType::Byte: return convert<C>(static_cast<const uint8_t*>(base)[index]);
    case ScalarType::Char: return convert<C>(static_cast<const int8_t*>(base)[index]);
    case ScalarType::Short: return convert<C>(static_cast<const int16_t*>(base)[index]);
    case ScalarType::Int: return convert<C>(static_cast<const int32_t*>(base)[index]);
    case ScalarType::Long: return convert<C>(static_cast<const int64_t*>(base)[index]);
    case ScalarType::Float: return convert<C>(static_cast<const float*>(base)[index]);
    case ScalarType::Double: return convert<C>(static_cast<const double*>(base)[index]);
    case ScalarType::UInt16:  // only quantized values (quantize_util.h's dispatch_quantized)
      return convert<C>(static_cast<const uint16_t*>(base)[index]);
    case ScalarType::Half:
      return convert<C>(half_bits_to_float(static_cast<const uint16_t*>(base)[index]));
    case ScalarType::BFloat16:
      return convert<C>(bfloat16_bits_to_float(static_cast<const uint16_t*>(base)[index]));
    default: return C(0);
  }
}

}  // namespace etkit::kernels
