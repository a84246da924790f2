#pragma once

// A float exp that GCC and Clang vectorize, and the functions the activation, unary and softmax
// kernels build on it (sigmoid, gelu's tanh approximation).
//
// libm's expf is an opaque call, so a loop over it runs one element at a time: sigmoid.out ran at
// about an eighth of memcpy's rate. `fast_exp` is a handful of multiplies, adds and integer ops
// with no branches and no table, so a loop over an array of floats vectorizes (given
// -fno-trapping-math, which kernels.cmake sets: otherwise GCC may not if-convert the clamps).
//
// Accuracy: relative error at most 2e-7 (about 1.5 ulp) against exp in double for every float
// whose exp is a normal float; results in the subnormal range are within one subnormal step;
// exp(x) is exactly +inf for x >= 88.8 (above 88.7228 the true value exceeds FLT_MAX), exactly
// 0 for x <= -104 (below ln 2^-150), and NaN for NaN. The unit tests sweep [-104, 89] every
// 2^-10 (unary_ops_test.cpp). Double stays on std::exp: the overloads for double forward to it.
//
// Everything here is always_inline: these run inside the kernels' loops, and a call (GCC's
// inliner gives up on fast_exp in the many instantiations of elementwise's loops, and in the
// -fPIC library it goes through the PLT) would keep the loop scalar.
//
// Header-only; no state, no allocation, safe from any thread.

#include <bit>
#include <cmath>
#include <cstdint>

namespace etkit::kernels {

/// e^x in float, branch-free so that loops over arrays vectorize; see the file comment for its
/// accuracy and special values.
[[gnu::always_inline]] inline float fast_exp(float x) {
  // Range reduction x = n ln2 + r with |r| <= ln2/2 (a little more where n rounds the other way),
  // then e^x = 2^n e^r.
  constexpr float kHi = 88.8f;    // exp(88.8) = 2^128.1 overflows to +inf below
  constexpr float kLo = -104.0f;  // exp(-104) = 2^-150.04 rounds to 0 below
  constexpr float kLog2e = 1.44269504088896341f;
  // Adding 1.5 * 2^23 rounds a float of magnitude below 2^22 to an integer held in the low
  // mantissa bits: n as a float and, from the bits, as an int, with no float-to-int conversion
  // (which would be undefined for NaN).
  constexpr float kShifter = 0x1.8p23f;
  // Cody-Waite: ln2 = kLn2Hi + kLn2Lo, kLn2Hi with 15 significant bits so that n * kLn2Hi is
  // exact for |n| < 2^9 and x - n * kLn2Hi is exact (Sterbenz).
  constexpr float kLn2Hi = 0x1.62e4p-1f;
  constexpr float kLn2Lo = 0x1.7f7d1cp-20f;
  // Cephes' minimax coefficients: e^r ~ 1 + r + r^2 P(r), P of degree 5, on [-ln2/2, ln2/2].
  constexpr float kP0 = 1.9875691500e-4f;
  constexpr float kP1 = 1.3981999507e-3f;
  constexpr float kP2 = 8.3334519073e-3f;
  constexpr float kP3 = 4.1665795894e-2f;
  constexpr float kP4 = 1.6666665459e-1f;
  constexpr float kP5 = 5.0000001201e-1f;

  // Clamp with comparisons that are false for NaN, so NaN flows through to the result; +-inf
  // clamp to the bounds, whose results are exactly inf and 0.
  x = x > kHi ? kHi : x;
  x = x < kLo ? kLo : x;
  const float t = x * kLog2e + kShifter;
  const float n = t - kShifter;
  const int32_t ni = std::bit_cast<int32_t>(t) - std::bit_cast<int32_t>(kShifter);
  float r = x - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float p = kP0;
  p = p * r + kP1;
  p = p * r + kP2;
  p = p * r + kP3;
  p = p * r + kP4;
  p = p * r + kP5;
  p = (p * (r * r) + r) + 1.0f;
  // 2^n as two factors 2^n1 * 2^n2, each a normal float for n in [-150, 128]: p * 2^n1 is exact
  // and the second multiply rounds once, into the subnormals or to 0 or inf as the true value
  // would. (For NaN the factors are garbage and p is NaN, so the product is NaN.)
  const int32_t n1 = ni >> 1;
  const int32_t n2 = ni - n1;
  const float s1 = std::bit_cast<float>(static_cast<uint32_t>(n1 + 127) << 23);
  const float s2 = std::bit_cast<float>(static_cast<uint32_t>(n2 + 127) << 23);
  return (p * s1) * s2;
}

/// e^x: `fast_exp` for float, std::exp for double (which keeps libm's accuracy).
[[gnu::always_inline]] inline float exp_of(float x) { return fast_exp(x); }
[[gnu::always_inline]] inline double exp_of(double x) { return std::exp(x); }

/// 1 / (1 + e^-x), from e = e^-|x| so that nothing overflows: 1 / (1 + e) for x >= 0 and
/// e / (1 + e) for x < 0, which keeps full relative accuracy down to the subnormals (where
/// 1 / (1 + e^-x) would give 0 once e^-x overflows). NaN gives NaN.
template <typename T>
[[gnu::always_inline]] inline T sigmoid_of(T x) {
  const T e = exp_of(-std::fabs(x));
  const T s = T(1) / (T(1) + e);
  return x >= T(0) ? s : e * s;
}

/// silu, x sigmoid(x).
template <typename T>
[[gnu::always_inline]] inline T silu_of(T x) {
  return x * sigmoid_of(x);
}

/// gelu with the tanh approximation, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), computed
/// as x sigmoid(2u) (the same function: 0.5 (1 + tanh(u)) = sigmoid(2u)) so tanh costs one exp.
template <typename T>
[[gnu::always_inline]] inline T gelu_tanh_of(T x) {
  constexpr T kTwoBeta = T(2 * 0.7978845608028654);  // 2 sqrt(2/pi)
  constexpr T kKappa = T(0.044715);
  return x * sigmoid_of(kTwoBeta * (x + kKappa * x * x * x));
}

}  // namespace etkit::kernels
