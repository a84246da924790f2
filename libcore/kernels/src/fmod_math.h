#pragma once

// fmod and remainder of float32 without libm's loop over the exponent difference (25x an add on
// 1M elements). binary_math_ops.cpp's element function and float_loops.cpp's contiguous loops
// share these, so every path gives the same bits, which are C's fmod's.

#include <cmath>
#include <cstdint>
#include <cstring>

namespace etkit::kernels {

// In double, a - trunc(a / b) * b is exact while |a / b| < 2^28. The quotient of two floats is
// either an integer or at least 2^-24 from one, more than double's rounding error of it there, so
// the truncation is right; trunc(a / b) * b fits 52 bits; and the remainder, a float, is
// representable. Its sign is a's, zero included. Anything else (b zero or infinite, NaN, an
// infinite a, huge quotients) is not `fmod_fast_ok` and goes to std::fmod.
inline constexpr double kFmodQuotientBelow = 268435456.0;  // 2^28
inline constexpr double kFloatMax = 3.4028234663852886e38;

[[gnu::always_inline]] inline bool fmod_fast_ok(double q, double y) {
  // An infinite b gives q = 0 and 0 * inf = NaN: libm's a is right, so it is excluded.
  // `&` on ints rather than `&&`: no branch, so that the loops vectorize.
  return (static_cast<int>(std::fabs(q) < kFmodQuotientBelow) &
          static_cast<int>(std::fabs(y) <= kFloatMax)) != 0;
}

// The fast formula, valid where fmod_fast_ok(x / y, y); elsewhere it returns garbage without
// undefined behaviour. trunc(|q|) without a conversion or a libm call, so that the loop has no
// branch and vectorizes on baseline SSE2 too: adding and subtracting 2^52 rounds |q| (< 2^28 here)
// to the nearest integer, and a result above |q| was rounded up, so is one too many.
inline constexpr double kTwoPow52 = 4503599627370496.0;

[[gnu::always_inline]] inline float fmod_fast(double x, double y, double q) {
  const double qa = std::fabs(q);
  const double nearest = (qa + kTwoPow52) - kTwoPow52;
  const double t = std::copysign(nearest > qa ? nearest - 1.0 : nearest, q);
  return std::copysign(static_cast<float>(x - t * y), static_cast<float>(x));
}

// Python's % from C's fmod: a nonzero result takes the divisor's sign.
[[gnu::always_inline]] inline float remainder_from_fmod(float m, float b) {
  return (m != 0.0f && ((b < 0.0f) != (m < 0.0f))) ? m + b : m;
}

/// C's fmod(a, b) for floats, bit for bit.
inline float fmod_float(float a, float b) {
  const double x = a;
  const double y = b;
  const double q = x / y;
  if (!fmod_fast_ok(q, y)) return std::fmod(a, b);
  return fmod_fast(x, y, q);
}

inline float remainder_float(float a, float b) { return remainder_from_fmod(fmod_float(a, b), b); }

// Elements per block of fmod_loop: a block's results go to the stack first, so that `out` may be
// `a` or `b`.
inline constexpr int64_t kFmodBlock = 256;

// r[j] = the fast formula's fmod (or remainder) of a[j * kStepA] and b[j * kStepB], j in [0, m);
// returns nonzero if some pair was not fmod_fast_ok. Branch-free, so that it vectorizes.
template <bool kRemainder, int kStepA, int kStepB>
[[gnu::always_inline]] inline int32_t fmod_fast_block(const float* a, const float* b, float* r,
                                                      int64_t m) {
  int32_t slow = 0;
  for (int64_t j = 0; j < m; ++j) {
    const double x = a[j * kStepA];
    const double y = b[j * kStepB];
    const double q = x / y;
    slow |= static_cast<int32_t>(!fmod_fast_ok(q, y));
    const float f = fmod_fast(x, y, q);
    r[j] = kRemainder ? remainder_from_fmod(f, static_cast<float>(y)) : f;
  }
  return slow;
}

// The same in float32 with a fused multiply-add, for a CPU that has one (twice the elements per
// vector and a cheaper division). With q = fl(a / b) and |q| < 2^22, trunc(q) is the true
// quotient's truncation n or, where a / b lies just below an integer and rounds up to it, n + 1
// in magnitude. Either way a - trunc(q) * b is representable (the remainder r0, or r0 - b:
// a multiple of the smaller ulp of a and b below |b|), so the fma gives it exactly; a result of
// the wrong sign is the second case and adding |b| with a's sign gives r0. Where not
// fmod_fma_ok, the caller's second pass takes fmod_float. Call only from code built for FMA:
// std::fma is a libm call elsewhere.
inline constexpr float kFmodFloatQuotientBelow = 4194304.0f;  // 2^22

[[gnu::always_inline]] inline bool fmod_fma_ok(float q, float y) {
  return (static_cast<int>(std::fabs(q) < kFmodFloatQuotientBelow) &
          static_cast<int>(std::fabs(y) <= 3.40282347e38f)) != 0;
}

template <bool kRemainder, int kStepA, int kStepB>
[[gnu::always_inline]] inline int32_t fmod_fma_block(const float* a, const float* b, float* r,
                                                     int64_t m) {
  int32_t slow = 0;
  for (int64_t j = 0; j < m; ++j) {
    const float x = a[j * kStepA];
    const float y = b[j * kStepB];
    const float q = x / y;
    slow |= static_cast<int32_t>(!fmod_fma_ok(q, y));
    float f = std::fma(-std::trunc(q), y, x);
    const bool overshot =
        (static_cast<int>(f != 0.0f) & static_cast<int>(std::signbit(f) != std::signbit(x))) != 0;
    f = std::copysign(overshot ? f + std::copysign(y, x) : f, x);
    r[j] = kRemainder ? remainder_from_fmod(f, y) : f;
  }
  return slow;
}

/// out[i] = fmod (or remainder) of a[i * kStepA] and b[i * kStepB], i in [0, n): a fast block
/// (fmod_fma_block if kFma, else fmod_fast_block) a block at a time, and only for a block where
/// some pair was not fast, a second pass through fmod_float. The fast pass writes `out` directly
/// unless `out` overlaps `a` or `b` (an in-place call), whose values the second pass needs: then
/// a block goes to the stack first.
template <bool kFma, bool kRemainder, int kStepA, int kStepB>
[[gnu::always_inline]] inline void fmod_loop(const float* a, const float* b, float* out,
                                             int64_t n) {
  auto overlaps = [out, n](const float* p, int64_t count) {
    return p < out + n && out < p + count;
  };
  const bool in_place = overlaps(a, kStepA == 0 ? 1 : n) || overlaps(b, kStepB == 0 ? 1 : n);
  float buffer[kFmodBlock];
  for (int64_t done = 0; done < n; done += kFmodBlock) {
    const int64_t m = n - done < kFmodBlock ? n - done : kFmodBlock;
    const float* pa = a + done * kStepA;
    const float* pb = b + done * kStepB;
    float* r = in_place ? buffer : out + done;
    const int32_t slow = kFma ? fmod_fma_block<kRemainder, kStepA, kStepB>(pa, pb, r, m)
                              : fmod_fast_block<kRemainder, kStepA, kStepB>(pa, pb, r, m);
    if (slow != 0) {
      for (int64_t j = 0; j < m; ++j) {
        r[j] = kRemainder ? remainder_float(pa[j * kStepA], pb[j * kStepB])
                          : fmod_float(pa[j * kStepA], pb[j * kStepB]);
      }
    }
    if (in_place) std::memcpy(out + done, r, static_cast<size_t>(m) * sizeof(float));
  }
}

}  // namespace etkit::kernels
