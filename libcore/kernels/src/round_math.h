#pragma once

// ceil, floor, round and trunc of a float or double without a libm call (rounding_ops.cpp's
// kernels and float_loops.cpp's contiguous loops share them, so both paths give the same bits).

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace etkit::kernels {

// Rounding without a libm call: on baseline x86-64 (SSE2, no roundss) std::floor and friends
// are calls, ten times slower than neg.out; these vectorize. |x| >= 2^mantissa is already an
// integer (and NaN/inf fail the test and pass through). Below it, the integer conversion
// truncates exactly; copysign keeps IEEE's signed zeros (ceil(-0.4) = -0, floor(-0.0) = -0).
// round adds and subtracts 2^mantissa, which rounds half to even in the default rounding mode.
template <typename C>
constexpr C kIntegerAbove = std::is_same_v<C, float> ? C(8388608.0) : C(4503599627370496.0);

// The conversion goes through int32 for float (SSE2 converts four floats to int32 at once; it
// has no packed float -> int64) and int64 for double.
template <typename C>
[[gnu::always_inline]] inline C trunc_of(C x) {
  using I = std::conditional_t<std::is_same_v<C, float>, int32_t, int64_t>;
  const bool big = !(std::fabs(x) < kIntegerAbove<C>);
  const C t = std::copysign(static_cast<C>(static_cast<I>(big ? C(0) : x)), x);
  return big ? x : t;
}
template <typename C>
[[gnu::always_inline]] inline C floor_of(C x) {
  const C t = trunc_of(x);
  return t > x ? std::copysign(t - C(1), x) : t;
}
template <typename C>
[[gnu::always_inline]] inline C ceil_of(C x) {
  const C t = trunc_of(x);
  return t < x ? std::copysign(t + C(1), x) : t;
}
template <typename C>
[[gnu::always_inline]] inline C round_of(C x) {
  if (!(std::fabs(x) < kIntegerAbove<C>)) return x;
  const C big = kIntegerAbove<C>;
  return std::copysign((std::fabs(x) + big) - big, x);
}

}  // namespace etkit::kernels
