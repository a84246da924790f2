// The AVX2 float GEMM micro-kernels (gemm_avx2.h): a 6x16 tile in twelve 256-bit accumulators,
// two B vectors and one broadcast of A per step of p.

#include "gemm_avx2.h"

#if defined(ETKIT_GEMM_X86)
#include <immintrin.h>

namespace etkit::kernels::gemm::detail {
namespace {

#define ETKIT_GEMM_TARGET_AVX2 __attribute__((target("avx2"), always_inline)) inline
#define ETKIT_GEMM_TARGET_FMA __attribute__((target("avx2,fma"), always_inline)) inline

ETKIT_GEMM_TARGET_AVX2 __m256 step_avx2(__m256 c, __m256 a, __m256 b) {
  return _mm256_add_ps(c, _mm256_mul_ps(a, b));
}
ETKIT_GEMM_TARGET_FMA __m256 step_fma(__m256 c, __m256 a, __m256 b) {
  return _mm256_fmadd_ps(a, b, c);
}

// The shared body; Step is step_avx2 or step_fma, inlined into each target's kernel.
#define ETKIT_GEMM_KERNEL_BODY(STEP)                                                        \
  for (int i = 0; i < 6; ++i) {                                                             \
    _mm_prefetch(reinterpret_cast<const char*>(rows[i]), _MM_HINT_T0);                      \
    _mm_prefetch(reinterpret_cast<const char*>(rows[i] + 15), _MM_HINT_T0);                 \
  }                                                                                         \
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();                              \
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();                              \
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();                              \
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();                              \
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();                              \
  __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();                              \
  _Pragma("GCC unroll 4") for (int64_t p = 0; p < kc; ++p) {                               \
    const __m256 b0 = _mm256_load_ps(b);                                                    \
    const __m256 b1 = _mm256_load_ps(b + 8);                                                \
    __m256 av = _mm256_broadcast_ss(a);                                                     \
    c00 = STEP(c00, av, b0);                                                                \
    c01 = STEP(c01, av, b1);                                                                \
    av = _mm256_broadcast_ss(a + 1);                                                        \
    c10 = STEP(c10, av, b0);                                                                \
    c11 = STEP(c11, av, b1);                                                                \
    av = _mm256_broadcast_ss(a + 2);                                                        \
    c20 = STEP(c20, av, b0);                                                                \
    c21 = STEP(c21, av, b1);                                                                \
    av = _mm256_broadcast_ss(a + 3);                                                        \
    c30 = STEP(c30, av, b0);                                                                \
    c31 = STEP(c31, av, b1);                                                                \
    av = _mm256_broadcast_ss(a + 4);                                                        \
    c40 = STEP(c40, av, b0);                                                                \
    c41 = STEP(c41, av, b1);                                                                \
    av = _mm256_broadcast_ss(a + 5);                                                        \
    c50 = STEP(c50, av, b0);                                                                \
    c51 = STEP(c51, av, b1);                                                                \
    a += 6;                                                                                 \
    b += 16;                                                                                \
  }                                                                                         \
  const __m256 va = _mm256_set1_ps(alpha);                                                  \
  const __m256 acc[6][2] = {{c00, c01}, {c10, c11}, {c20, c21},                             \
                            {c30, c31}, {c40, c41}, {c50, c51}};                            \
  for (int i = 0; i < 6; ++i) {                                                             \
    float* out = rows[i];                                                                   \
    for (int h = 0; h < 2; ++h) {                                                           \
      const __m256 scaled = _mm256_mul_ps(va, acc[i][h]);                                   \
      _mm256_storeu_ps(out + 8 * h, overwrite                                               \
                                        ? scaled                                            \
                                        : _mm256_add_ps(_mm256_loadu_ps(out + 8 * h), scaled)); \
    }                                                                                       \
  }

}  // namespace

__attribute__((target("avx2"))) void micro_kernel_avx2(int64_t kc, const float* a,
                                                       const float* b, float* const* rows,
                                                       float alpha, bool overwrite) {
  ETKIT_GEMM_KERNEL_BODY(step_avx2)
}

__attribute__((target("avx2,fma"))) void micro_kernel_avx2_fma(int64_t kc, const float* a,
                                                              const float* b, float* const* rows,
                                                              float alpha, bool overwrite) {
  ETKIT_GEMM_KERNEL_BODY(step_fma)
}

}  // namespace etkit::kernels::gemm::detail
#endif
