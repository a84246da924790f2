// Array conversions between float32 and the 16-bit floats; see float16.h.
//
// BFloat16 is integer arithmetic on the float's bits, written branch-free so that it
// vectorizes. Half uses the F16C instructions where the CPU has them (chosen once per process),
// else half.h one element at a time. F16C rounds to nearest even like half.h and handles
// subnormals and overflow the same way; only NaN differs (F16C keeps payload bits, half.h writes
// the quiet NaN of the sign), so a block holding a NaN is narrowed by half.h instead.

#include "etkit/kernels/float16.h"

#include <bit>

#include "etkit/runtime/half.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define ETKIT_FLOAT16_F16C 1
#endif

namespace etkit::kernels {
namespace {

void widen_bfloat16(const uint16_t* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::bit_cast<float>(static_cast<uint32_t>(in[i]) << 16);
}

void narrow_bfloat16(const float* in, uint16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t x = std::bit_cast<uint32_t>(in[i]);
    const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    out[i] = static_cast<uint16_t>((x & 0x7fffffffu) > 0x7f800000u ? 0x7fc0u : rounded);
  }
}

void widen_half_scalar(const uint16_t* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = half_bits_to_float(in[i]);
}

void narrow_half_scalar(const float* in, uint16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = float_to_half_bits(in[i]);
}

#ifdef ETKIT_FLOAT16_F16C
[[gnu::target("avx,f16c")]] void widen_half_f16c(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  widen_half_scalar(in + i, out + i, n - i);
}

[[gnu::target("avx,f16c")]] void narrow_half_f16c(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(in + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)) != 0) {
      narrow_half_scalar(in + i, out + i, 8);
      continue;
    }
    const __m128i h = _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  narrow_half_scalar(in + i, out + i, n - i);
}
#endif

using Widen = void (*)(const uint16_t*, float*, int64_t);
using Narrow = void (*)(const float*, uint16_t*, int64_t);

struct HalfLoops {
  Widen widen;
  Narrow narrow;
};

HalfLoops choose() {
#ifdef ETKIT_FLOAT16_F16C
  // F16C from CPUID leaf 1 (clang's __builtin_cpu_supports does not know "f16c"); "avx" also
  // checks that the OS saves the ymm registers.
  __builtin_cpu_init();
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__builtin_cpu_supports("avx") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 &&
      (ecx & bit_F16C) != 0) {
    return {widen_half_f16c, narrow_half_f16c};
  }
#endif
  return {widen_half_scalar, narrow_half_scalar};
}

const HalfLoops& half_loops() {
  static const HalfLoops chosen = choose();
  return chosen;
}

}  // namespace

void widen_float16(const uint16_t* in, ScalarType t, float* out, int64_t n) {
  if (t == ScalarType::Half) {
    half_loops().widen(in, out, n);
  } else {
    widen_bfloat16(in, out, n);
  }
}

void narrow_float16(const float* in, ScalarType t, uint16_t* out, int64_t n) {
  if (t == ScalarType::Half) {
    half_loops().narrow(in, out, n);
  } else {
    narrow_bfloat16(in, out, n);
  }
}

}  // namespace etkit::kernels
