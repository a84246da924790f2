#pragma once

// The 16-bit floating dtypes, Half (IEEE binary16) and BFloat16 (the top half of a float32),
// held as their bits: conversions to float32 (exact) and from it (rounded to nearest, ties to
// even, as c10::Half and c10::BFloat16 round). Every reader and writer of 16-bit floats in
// etkit (kernels, host tensors, debug buffers) converts through these.

#include <bit>
#include <cstdint>

namespace etkit {

/// The float32 value of Half bits: exact (every Half is a float32). NaN keeps its sign and
/// payload.
inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0) {
    // Rebias the exponent from 15 to 127.
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
  }
  // Zero or subnormal: mantissa * 2^-24, exact in float32.
  const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
  return sign != 0 ? -magnitude : magnitude;
}

/// The Half nearest `f` (ties to even). Magnitudes from 65520 up become infinity; NaN becomes
/// the quiet NaN of its sign.
inline uint16_t float_to_half_bits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);
  // 0x477ff000 is 65520, halfway between Half's largest finite (65504) and 2^16: it and
  // everything above round to infinity.
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (magnitude >= 0x38800000u) {
    // A normal Half (at least 2^-14): rebias the exponent from 127 to 15 and round away the 13
    // low mantissa bits. A carry out of the mantissa correctly bumps the exponent.
    uint32_t h = (magnitude - 0x38000000u) >> 13;
    const uint32_t rest = magnitude & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) != 0)) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  // A subnormal Half or zero: the value in units of 2^-24, rounded. With the implicit bit, the
  // float's 24-bit mantissa is the value in units of 2^(exponent-150); shift it to 2^-24 units.
  const uint32_t exponent = magnitude >> 23;
  const uint32_t shift = 126 - exponent;  // >= 14, as exponent <= 112 here
  if (shift > 24) return sign;            // below 2^-25: rounds to zero
  const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  uint32_t h = mantissa >> shift;
  const uint32_t rest = mantissa & ((1u << shift) - 1);
  const uint32_t half_unit = 1u << (shift - 1);
  if (rest > half_unit || (rest == half_unit && (h & 1u) != 0)) ++h;
  return static_cast<uint16_t>(sign | h);
}

/// The float32 value of BFloat16 bits: exact.
inline float bfloat16_bits_to_float(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

/// The BFloat16 nearest `f` (ties to even); finite values past the largest BFloat16 become
/// infinity. NaN becomes 0x7fc0, the quiet NaN c10::BFloat16 writes for every NaN.
inline uint16_t float_to_bfloat16_bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

}  // namespace etkit
