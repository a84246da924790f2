// etkit/runtime/half.h: Half and BFloat16 bits to and from float32. The expected bits are
// worked out by hand from the formats (Half: 1 sign, 5 exponent bits biased by 15, 10 mantissa
// bits; BFloat16: float32's top 16 bits) and round-to-nearest-even.

#include "etkit/runtime/half.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace etkit {
namespace {

TEST_CASE("half_bits_to_float: normals, subnormals, zeros, infinities and NaN") {
  CHECK(half_bits_to_float(0x3c00) == 1.0f);
  CHECK(half_bits_to_float(0xc000) == -2.0f);
  CHECK(half_bits_to_float(0x3555) == 0.333251953125f);  // (1 + 341/1024) / 4
  CHECK(half_bits_to_float(0x7bff) == 65504.0f);         // the largest finite Half
  CHECK(half_bits_to_float(0x0400) == std::ldexp(1.0f, -14));     // the smallest normal
  CHECK(half_bits_to_float(0x03ff) == 1023 * std::ldexp(1.0f, -24));  // the largest subnormal
  CHECK(half_bits_to_float(0x0001) == std::ldexp(1.0f, -24));     // the smallest subnormal
  CHECK(half_bits_to_float(0x8001) == -std::ldexp(1.0f, -24));
  CHECK(half_bits_to_float(0x0000) == 0.0f);
  CHECK(std::signbit(half_bits_to_float(0x8000)));
  CHECK(half_bits_to_float(0x7c00) == std::numeric_limits<float>::infinity());
  CHECK(half_bits_to_float(0xfc00) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(half_bits_to_float(0x7e00)));
  CHECK(std::isnan(half_bits_to_float(0x7c01)));  // a signalling payload is still NaN
  CHECK(std::signbit(half_bits_to_float(0xfe00)));
}

TEST_CASE("float_to_half_bits rounds to nearest, ties to even") {
  CHECK(float_to_half_bits(1.0f) == 0x3c00);
  CHECK(float_to_half_bits(-2.0f) == 0xc000);
  CHECK(float_to_half_bits(1.0f / 3.0f) == 0x3555);  // the 13 dropped bits are below half
  // Between 2048 and 4096 Half's step is 2: odd integers are ties.
  CHECK(float_to_half_bits(2049.0f) == 0x6800);  // 2048, even mantissa
  CHECK(float_to_half_bits(2051.0f) == 0x6802);  // 2052, even mantissa
  CHECK(float_to_half_bits(2049.5f) == 0x6801);  // past the tie: 2050
  SUBCASE("the top of the range and overflow") {
    CHECK(float_to_half_bits(65504.0f) == 0x7bff);
    CHECK(float_to_half_bits(65519.0f) == 0x7bff);  // below the halfway point 65520
    CHECK(float_to_half_bits(65520.0f) == 0x7c00);  // the tie rounds to even: 2^16, infinite
    CHECK(float_to_half_bits(1e6f) == 0x7c00);
    CHECK(float_to_half_bits(-1e6f) == 0xfc00);
    CHECK(float_to_half_bits(std::numeric_limits<float>::infinity()) == 0x7c00);
    CHECK(float_to_half_bits(-std::numeric_limits<float>::infinity()) == 0xfc00);
  }
  SUBCASE("subnormals and zero") {
    const float unit = std::ldexp(1.0f, -24);
    CHECK(float_to_half_bits(unit) == 0x0001);
    CHECK(float_to_half_bits(0.5f * unit) == 0x0000);   // the tie with 0 rounds to even 0
    CHECK(float_to_half_bits(0.75f * unit) == 0x0001);  // past the tie
    CHECK(float_to_half_bits(1.5f * unit) == 0x0002);   // the tie between 1 and 2 goes to 2
    CHECK(float_to_half_bits(2.5f * unit) == 0x0002);   // the tie between 2 and 3 goes to 2
    CHECK(float_to_half_bits(-0.25f * unit) == 0x8000);
    CHECK(float_to_half_bits(1023.5f * unit) == 0x0400);  // rounds up into the smallest normal
    CHECK(float_to_half_bits(std::ldexp(1.0f, -14)) == 0x0400);
    CHECK(float_to_half_bits(std::numeric_limits<float>::denorm_min()) == 0x0000);
    CHECK(float_to_half_bits(-0.0f) == 0x8000);
    CHECK(float_to_half_bits(0.0f) == 0x0000);
  }
  SUBCASE("NaN becomes the quiet NaN of its sign") {
    CHECK(float_to_half_bits(std::numeric_limits<float>::quiet_NaN()) == 0x7e00);
    CHECK(float_to_half_bits(-std::numeric_limits<float>::quiet_NaN()) == 0xfe00);
    CHECK(float_to_half_bits(std::bit_cast<float>(0x7f800001u)) == 0x7e00);  // payload below
  }
}

TEST_CASE("every Half survives the trip through float32") {
  int mismatches = 0;
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const float f = half_bits_to_float(static_cast<uint16_t>(h));
    const uint16_t back = float_to_half_bits(f);
    const bool nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
    if (nan ? !std::isnan(f) || (back & 0x7fffu) != 0x7e00u : back != h) ++mismatches;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("BFloat16: float32's top half, rounded to nearest even") {
  CHECK(bfloat16_bits_to_float(0x3f80) == 1.0f);
  CHECK(bfloat16_bits_to_float(0x4049) == 3.140625f);
  CHECK(bfloat16_bits_to_float(0xff80) == -std::numeric_limits<float>::infinity());
  CHECK(float_to_bfloat16_bits(1.0f) == 0x3f80);
  // BFloat16 keeps 7 mantissa bits: near 1 its step is 2^-7.
  CHECK(float_to_bfloat16_bits(1.0f + 0x1p-8f) == 0x3f80);           // tie: to even 1
  CHECK(float_to_bfloat16_bits(1.0f + 3 * 0x1p-8f) == 0x3f82);       // tie: to even 1 + 2^-6
  CHECK(float_to_bfloat16_bits(1.0f + 0x1p-8f + 0x1p-20f) == 0x3f81);  // past the tie
  CHECK(float_to_bfloat16_bits(-1.0f - 0x1p-9f) == 0xbf80);
  CHECK(float_to_bfloat16_bits(std::numeric_limits<float>::max()) == 0x7f80);  // overflows
  CHECK(float_to_bfloat16_bits(std::numeric_limits<float>::quiet_NaN()) == 0x7fc0);
  // A NaN whose low bits would carry into the sign under plain rounding stays NaN.
  CHECK(float_to_bfloat16_bits(std::bit_cast<float>(0x7fffffffu)) == 0x7fc0);
  CHECK(float_to_bfloat16_bits(std::bit_cast<float>(0xffffffffu)) == 0x7fc0);
  int mismatches = 0;
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const bool nan = (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0;
    if (nan) continue;
    if (float_to_bfloat16_bits(bfloat16_bits_to_float(static_cast<uint16_t>(b))) != b) {
      ++mismatches;
    }
  }
  CHECK(mismatches == 0);
}

}  // namespace
}  // namespace etkit
