#pragma once

// The fixed-point requantization of Arm's CMSIS-NN int8 kernels, which the cortex_m operators
// of ExecuTorch call: an int32 accumulator scaled by `multiplier * 2^(shift - 31)` (multiplier a
// Q31 value, shift in [-31, 31]) with CMSIS-NN's default double rounding:
//   1. a left shift by max(shift, 0) (wrapping, as the 32-bit multiply of the hardware does);
//   2. a doubling high multiply: (x * multiplier + 2^30) >> 31, the rounding offset always
//      positive (CMSIS's `no_sat` form, which differs from TFLite's saturating one only for the
//      product INT32_MIN * INT32_MIN, whose result wraps);
//   3. a rounding right shift by max(-shift, 0), ties away from zero.
// Written from CMSIS-NN's documented arithmetic; header-only, no allocation.

#include <cstdint>

namespace etkit::kernels::cmsis {

/// True if `multiplier` and `shift` are a requantization CMSIS-NN accepts.
inline bool valid_requant(int64_t multiplier, int64_t shift) {
  return multiplier >= INT32_MIN && multiplier <= INT32_MAX && shift >= -31 && shift <= 31;
}

/// round(acc * multiplier * 2^(shift - 31)) as CMSIS-NN computes it (see above). `shift` must be
/// in [-31, 31].
inline int32_t requantize(int32_t acc, int32_t multiplier, int32_t shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  const int32_t x = static_cast<int32_t>(static_cast<uint32_t>(acc) << left);
  const int64_t product = static_cast<int64_t>(x) * multiplier + (int64_t{1} << 30);
  const int32_t high = static_cast<int32_t>(product >> 31);  // wraps only for INT32_MIN^2
  if (right == 0) return high;
  const int64_t mask = (int64_t{1} << right) - 1;
  const int64_t remainder = high & mask;
  int64_t result = static_cast<int64_t>(high) >> right;
  const int64_t threshold = (mask >> 1) + (result < 0 ? 1 : 0);
  if (remainder > threshold) ++result;
  return static_cast<int32_t>(result);
}

/// `v` clamped to [lo, hi].
inline int32_t clamp(int64_t v, int32_t lo, int32_t hi) {
  return static_cast<int32_t>(v < lo ? lo : v > hi ? hi : v);
}

}  // namespace etkit::kernels::cmsis
