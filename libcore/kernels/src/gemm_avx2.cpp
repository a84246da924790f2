// The AVX2 + FMA float GEMM micro-kernel (gemm_avx2.h): a 6x16 tile in twelve 256-bit
// accumulators, two B vectors and one broadcast of A per step of p, one fused multiply-add per
// element and step.

#include "gemm_avx2.h"

#if defined(ETKIT_GEMM_X86)
#include <immintrin.h>

namespace etkit::kernels::gemm::detail {

__attribute__((target("avx2,fma"))) void micro_kernel_avx2_fma(int64_t kc, const float* a,
                                                              const float* b, float* const* rows,
                                                              float alpha, bool overwrite) {
  for (int i = 0; i < 6; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(rows[i]), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(rows[i] + 15), _MM_HINT_T0);
  }
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
  __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_load_ps(b);
    const __m256 b1 = _mm256_load_ps(b + 8);
    __m256 av = _mm256_broadcast_ss(a);
    c00 = _mm256_fmadd_ps(av, b0, c00);
    c01 = _mm256_fmadd_ps(av, b1, c01);
    av = _mm256_broadcast_ss(a + 1);
    c10 = _mm256_fmadd_ps(av, b0, c10);
    c11 = _mm256_fmadd_ps(av, b1, c11);
    av = _mm256_broadcast_ss(a + 2);
    c20 = _mm256_fmadd_ps(av, b0, c20);
    c21 = _mm256_fmadd_ps(av, b1, c21);
    av = _mm256_broadcast_ss(a + 3);
    c30 = _mm256_fmadd_ps(av, b0, c30);
    c31 = _mm256_fmadd_ps(av, b1, c31);
    av = _mm256_broadcast_ss(a + 4);
    c40 = _mm256_fmadd_ps(av, b0, c40);
    c41 = _mm256_fmadd_ps(av, b1, c41);
    av = _mm256_broadcast_ss(a + 5);
    c50 = _mm256_fmadd_ps(av, b0, c50);
    c51 = _mm256_fmadd_ps(av, b1, c51);
    a += 6;
    b += 16;
  }
  const __m256 va = _mm256_set1_ps(alpha);
  const __m256 acc[6][2] = {{c00, c01}, {c10, c11}, {c20, c21},
                            {c30, c31}, {c40, c41}, {c50, c51}};
  for (int i = 0; i < 6; ++i) {
    float* out = rows[i];
    for (int h = 0; h < 2; ++h) {
      const __m256 scaled = _mm256_mul_ps(va, acc[i][h]);
      _mm256_storeu_ps(out + 8 * h, overwrite
                                        ? scaled
                                        : _mm256_add_ps(_mm256_loadu_ps(out + 8 * h), scaled));
    }
  }
}

}  // namespace etkit::kernels::gemm::detail
#endif
