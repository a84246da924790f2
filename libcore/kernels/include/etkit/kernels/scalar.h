#pragma once

// Scalar arguments of kernels, and arithmetic that is defined for every input: conversions
// (float -> int saturates, NaN -> 0), whether a scalar fits a dtype, wrapping integer arithmetic,
// and a scalar's text in messages.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "etkit/runtime/scalar_type.h"

namespace etkit::kernels {

// ---------------------------------------------------------------------------------------------
// Scalars.

/// A Scalar argument as it arrived: an Int, Double or Bool value.
struct Scalar {
  enum class Kind : uint8_t { Bool, Int, Double };
  Kind kind = Kind::Int;
  bool b = false;
  int64_t i = 0;
  double d = 0.0;

  bool is_floating() const { return kind == Kind::Double; }
  bool is_bool() const { return kind == Kind::Bool; }
  /// Zero, whatever the kind (a double -0.0 counts as zero).
  bool is_zero() const {
    return kind == Kind::Bool ? !b : kind == Kind::Int ? i == 0 : d == 0.0;
  }
  /// The dtype PyTorch gives the scalar as a wrapped number: bool, int64 or the default float32.
  ScalarType wrapped_type() const {
    return kind == Kind::Bool ? ScalarType::Bool
           : kind == Kind::Int ? ScalarType::Long
                               : ScalarType::Float;
  }
  template <typename T>
  T to() const;
};

// ---------------------------------------------------------------------------------------------
// Conversions that are defined for every input (float -> int saturates, NaN -> 0).

template <typename To, typename From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(v);
  } else if constexpr (std::is_floating_point_v<From>) {
    // Out-of-range float to integer conversion is UB in C++; saturate instead.
    if (!(v == v)) return To(0);
    constexpr From kMax = static_cast<From>(std::numeric_limits<To>::max());
    constexpr From kMin = static_cast<From>(std::numeric_limits<To>::min());
    if (v >= kMax) return std::numeric_limits<To>::max();
    if (v <= kMin) return std::numeric_limits<To>::min();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);  // integral to integral: modular since C++20
  }
}

template <typename T>
T Scalar::to() const {
  switch (kind) {
    case Kind::Bool: return convert<T>(b);
    case Kind::Int: return convert<T>(i);
    case Kind::Double: return convert<T>(d);
  }
  return T(0);
}

/// Whether `value` converts to `C` without overflow (PyTorch refuses such a scalar as a fill,
/// a clamp bound or a comparison operand in `C`). Floating targets accept any finite value within
/// range and every non-finite one; bool accepts everything.
template <typename C>
bool scalar_fits(const Scalar& value) {
  if constexpr (std::is_same_v<C, bool>) {
    return true;
  } else if constexpr (std::is_floating_point_v<C>) {
    if (!value.is_floating() || !std::isfinite(value.d)) return true;
    return std::fabs(value.d) <= static_cast<double>(std::numeric_limits<C>::max());
  } else {
    constexpr auto kMin = std::numeric_limits<C>::min();
    constexpr auto kMax = std::numeric_limits<C>::max();
    switch (value.kind) {
      case Scalar::Kind::Bool: return true;
      case Scalar::Kind::Int:
        return value.i >= static_cast<int64_t>(kMin) && value.i <= static_cast<int64_t>(kMax);
      case Scalar::Kind::Double:
        // kMax + 1 is a power of two, exact in double even for int64.
        return std::isfinite(value.d) && value.d >= static_cast<double>(kMin) &&
               value.d < static_cast<double>(kMax) + 1.0;
    }
    return false;
  }
}

/// A scalar's value as it prints in a message: True/False, an integer, or `%g` of a double.
struct ScalarText {
  char text[48];
  explicit ScalarText(const Scalar& s);
};

// ---------------------------------------------------------------------------------------------
// Wrapping integer arithmetic: signed overflow is UB, so integers compute in an unsigned type at
// least as wide as `unsigned` (narrow types would otherwise promote to signed int).

template <typename T>
using WideUnsigned =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
inline constexpr bool kIsWrapInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
inline T add_wrap(T a, T b) {
  if constexpr (kIsWrapInt<T>) {
    using U = WideUnsigned<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(a + b);
  }
}
template <typename T>
inline T sub_wrap(T a, T b) {
  if constexpr (kIsWrapInt<T>) {
    using U = WideUnsigned<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return static_cast<T>(a - b);
  }
}
template <typename T>
inline T mul_wrap(T a, T b) {
  if constexpr (kIsWrapInt<T>) {
    using U = WideUnsigned<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return static_cast<T>(a * b);
  }
}

}  // namespace etkit::kernels
