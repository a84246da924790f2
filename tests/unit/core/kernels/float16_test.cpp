// The array conversions of float16.h against the element conversions of half.h (themselves
// checked by hand-worked bits in half_test.cpp): the same bits for every 16-bit pattern, every
// length (the vector loops' tails), and blocks that hold a NaN (F16C keeps a NaN's payload, so
// such a block takes half.h's path).

#include "etkit/kernels/float16.h"

#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "etkit/runtime/half.h"

namespace etkit::kernels {
namespace {

constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kBF16 = ScalarType::BFloat16;

float element_to_float(uint16_t bits, ScalarType t) {
  return t == kHalf ? half_bits_to_float(bits) : bfloat16_bits_to_float(bits);
}

uint16_t element_from_float(float f, ScalarType t) {
  return t == kHalf ? float_to_half_bits(f) : float_to_bfloat16_bits(f);
}

TEST_CASE("float16: widening every Half and BFloat16 pattern gives half.h's float") {
  for (ScalarType t : {kHalf, kBF16}) {
    CAPTURE(scalar_type_name(t));
    std::vector<uint16_t> in(65536);
    for (uint32_t i = 0; i < 65536; ++i) in[i] = static_cast<uint16_t>(i);
    std::vector<float> out(in.size());
    widen_float16(in.data(), t, out.data(), static_cast<int64_t>(in.size()));
    int mismatches = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const uint32_t got = std::bit_cast<uint32_t>(out[i]);
      const uint32_t want = std::bit_cast<uint32_t>(element_to_float(in[i], t));
      // Bits, so that -0.0 and 0.0 differ too. A NaN stays a NaN of its sign; F16C sets the
      // quiet bit of a signaling one, so only the quiet bit may differ there.
      const bool nan = out[i] != out[i];
      if (nan ? (got | 0x00400000u) != (want | 0x00400000u) : got != want) ++mismatches;
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("float16: narrowing rounds as half.h does, NaN blocks included") {
  // Every float whose top 16 bits are i, with low bits at the rounding boundaries: exactly
  // halfway (0x8000 for BFloat16), just below and above, and zero.
  std::vector<float> in;
  for (uint32_t hi = 0; hi < 65536; hi += 3) {
    for (uint32_t lo : {0x0000u, 0x7fffu, 0x8000u, 0x8001u, 0x1000u, 0xf000u}) {
      in.push_back(std::bit_cast<float>(hi << 16 | lo));
    }
  }
  for (ScalarType t : {kHalf, kBF16}) {
    CAPTURE(scalar_type_name(t));
    std::vector<uint16_t> out(in.size());
    narrow_float16(in.data(), t, out.data(), static_cast<int64_t>(in.size()));
    int mismatches = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      if (out[i] != element_from_float(in[i], t)) ++mismatches;
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("float16: every length, and a NaN anywhere in a vector block") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (ScalarType t : {kHalf, kBF16}) {
    CAPTURE(scalar_type_name(t));
    for (int64_t n = 0; n <= 19; ++n) {
      for (int64_t nan_at = -1; nan_at < n; ++nan_at) {
        CAPTURE(n);
        CAPTURE(nan_at);
        std::vector<float> in(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) in[static_cast<size_t>(i)] = 0.1f * static_cast<float>(i) - 0.7f;
        if (nan_at >= 0) in[static_cast<size_t>(nan_at)] = -nan;
        // One guard element past the end must stay untouched.
        std::vector<uint16_t> out(static_cast<size_t>(n) + 1, 0xabcd);
        narrow_float16(in.data(), t, out.data(), n);
        for (int64_t i = 0; i < n; ++i) {
          CHECK(out[static_cast<size_t>(i)] == element_from_float(in[static_cast<size_t>(i)], t));
        }
        CHECK(out[static_cast<size_t>(n)] == 0xabcd);
        std::vector<float> back(static_cast<size_t>(n) + 1, 42.0f);
        widen_float16(out.data(), t, back.data(), n);
        for (int64_t i = 0; i < n; ++i) {
          const float want = element_to_float(out[static_cast<size_t>(i)], t);
          CHECK(std::bit_cast<uint32_t>(back[static_cast<size_t>(i)]) ==
                std::bit_cast<uint32_t>(want));
        }
        CHECK(back[static_cast<size_t>(n)] == 42.0f);
      }
    }
  }
}

TEST_CASE("float16: round_to_dtype") {
  // 0.1 is 0x2e66 in Half (0.0999755859375) and 0x3dcd in BFloat16 (0.10009765625).
  CHECK(round_to_dtype(0.1f, kHalf) == 0.0999755859375f);
  CHECK(round_to_dtype(0.1f, kBF16) == 0.10009765625f);
  CHECK(round_to_dtype(0.1f, ScalarType::Float) == 0.1f);
  CHECK(round_to_dtype(0.1, kHalf) == 0.1);  // only float values are rounded
  CHECK(round_to_dtype(int64_t{70000}, kHalf) == 70000);
}

}  // namespace
}  // namespace etkit::kernels
