// The AVX-512 float GEMM micro-kernel (gemm_avx512.h): the 6x16 tile in six 512-bit
// accumulators, one row each, one B vector and one broadcast of A per row and step of p, one
// fused multiply-add per element and step, in the order of every other path (so the same bits).

#include "gemm_avx512.h"

#if defined(ETKIT_GEMM_X86)
#include <immintrin.h>

namespace etkit::kernels::gemm::detail {

__attribute__((target("avx512f"))) void micro_kernel_avx512(int64_t kc, const float* a,
                                                            const float* b, float* const* rows,
                                                            float alpha, bool overwrite) {
  for (int i = 0; i < 6; ++i) _mm_prefetch(reinterpret_cast<const char*>(rows[i]), _MM_HINT_T0);
  __m512 c0 = _mm512_setzero_ps(), c1 = _mm512_setzero_ps(), c2 = _mm512_setzero_ps();
  __m512 c3 = _mm512_setzero_ps(), c4 = _mm512_setzero_ps(), c5 = _mm512_setzero_ps();
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 bv = _mm512_loadu_ps(b);
    c0 = _mm512_fmadd_ps(_mm512_set1_ps(a[0]), bv, c0);
    c1 = _mm512_fmadd_ps(_mm512_set1_ps(a[1]), bv, c1);
    c2 = _mm512_fmadd_ps(_mm512_set1_ps(a[2]), bv, c2);
    c3 = _mm512_fmadd_ps(_mm512_set1_ps(a[3]), bv, c3);
    c4 = _mm512_fmadd_ps(_mm512_set1_ps(a[4]), bv, c4);
    c5 = _mm512_fmadd_ps(_mm512_set1_ps(a[5]), bv, c5);
    a += 6;
    b += 16;
  }
  const __m512 va = _mm512_set1_ps(alpha);
  const __m512 acc[6] = {c0, c1, c2, c3, c4, c5};
  for (int i = 0; i < 6; ++i) {
    // alpha times the sum, then added: two roundings, as on every path (this file is compiled
    // without FP contraction).
    const __m512 scaled = _mm512_mul_ps(va, acc[i]);
    _mm512_storeu_ps(rows[i],
                     overwrite ? scaled : _mm512_add_ps(_mm512_loadu_ps(rows[i]), scaled));
  }
}

// Two tiles: twelve accumulators, one B vector and twelve broadcasts per step of p. Each
// accumulator takes the same fused multiply-adds in the same order as in micro_kernel_avx512.
__attribute__((target("avx512f"))) void pair_kernel_avx512(int64_t kc, const float* a0,
                                                           const float* a1, const float* b,
                                                           float* const* rows, float alpha,
                                                           bool overwrite) {
  for (int i = 0; i < 12; ++i) _mm_prefetch(reinterpret_cast<const char*>(rows[i]), _MM_HINT_T0);
  __m512 c0 = _mm512_setzero_ps(), c1 = _mm512_setzero_ps(), c2 = _mm512_setzero_ps();
  __m512 c3 = _mm512_setzero_ps(), c4 = _mm512_setzero_ps(), c5 = _mm512_setzero_ps();
  __m512 c6 = _mm512_setzero_ps(), c7 = _mm512_setzero_ps(), c8 = _mm512_setzero_ps();
  __m512 c9 = _mm512_setzero_ps(), c10 = _mm512_setzero_ps(), c11 = _mm512_setzero_ps();
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 bv = _mm512_loadu_ps(b);
    c0 = _mm512_fmadd_ps(_mm512_set1_ps(a0[0]), bv, c0);
    c1 = _mm512_fmadd_ps(_mm512_set1_ps(a0[1]), bv, c1);
    c2 = _mm512_fmadd_ps(_mm512_set1_ps(a0[2]), bv, c2);
    c3 = _mm512_fmadd_ps(_mm512_set1_ps(a0[3]), bv, c3);
    c4 = _mm512_fmadd_ps(_mm512_set1_ps(a0[4]), bv, c4);
    c5 = _mm512_fmadd_ps(_mm512_set1_ps(a0[5]), bv, c5);
    c6 = _mm512_fmadd_ps(_mm512_set1_ps(a1[0]), bv, c6);
    c7 = _mm512_fmadd_ps(_mm512_set1_ps(a1[1]), bv, c7);
    c8 = _mm512_fmadd_ps(_mm512_set1_ps(a1[2]), bv, c8);
    c9 = _mm512_fmadd_ps(_mm512_set1_ps(a1[3]), bv, c9);
    c10 = _mm512_fmadd_ps(_mm512_set1_ps(a1[4]), bv, c10);
    c11 = _mm512_fmadd_ps(_mm512_set1_ps(a1[5]), bv, c11);
    a0 += 6;
    a1 += 6;
    b += 16;
  }
  const __m512 va = _mm512_set1_ps(alpha);
  const __m512 acc[12] = {c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11};
  for (int i = 0; i < 12; ++i) {
    const __m512 scaled = _mm512_mul_ps(va, acc[i]);  // as in micro_kernel_avx512
    _mm512_storeu_ps(rows[i],
                     overwrite ? scaled : _mm512_add_ps(_mm512_loadu_ps(rows[i]), scaled));
  }
}

}  // namespace etkit::kernels::gemm::detail
#endif
