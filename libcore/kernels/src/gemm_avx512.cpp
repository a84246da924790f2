// The AVX-512 float GEMM micro-kernels (gemm_avx512.h): one 6x16 tile, or two side by side
// (6x32), a row of a tile per 512-bit accumulator, one B vector per panel and one broadcast of
// A per row and step of p, one fused multiply-add per element and step, in the order of every
// other path (so the same bits).

#include "gemm_avx512.h"

#if defined(ETKIT_GEMM_X86)
#include <immintrin.h>

#include <cstddef>

namespace etkit::kernels::gemm::detail {
namespace {

// kPanels tiles side by side: rows[6 t + i] = row i of the tile of B panel b[t], all against
// the A panel a, in 6 kPanels accumulators.
template <size_t kPanels>
__attribute__((target("avx512f"), always_inline)) inline void tiles_avx512(
    int64_t kc, const float* a, const float* const* b, float* const* rows, float alpha,
    bool overwrite) {
  constexpr size_t kRows = 6 * kPanels;
  for (size_t i = 0; i < kRows; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(rows[i]), _MM_HINT_T0);
  }
  const float* panel[kPanels];
  for (size_t t = 0; t < kPanels; ++t) panel[t] = b[t];
  __m512 c[kRows];
  for (size_t i = 0; i < kRows; ++i) c[i] = _mm512_setzero_ps();
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    __m512 bv[kPanels];
    for (size_t t = 0; t < kPanels; ++t) bv[t] = _mm512_loadu_ps(panel[t]);
#pragma GCC unroll 6
    for (size_t i = 0; i < 6; ++i) {
      const __m512 av = _mm512_set1_ps(a[i]);
      for (size_t t = 0; t < kPanels; ++t) c[6 * t + i] = _mm512_fmadd_ps(av, bv[t], c[6 * t + i]);
    }
    a += 6;
    for (size_t t = 0; t < kPanels; ++t) panel[t] += 16;
  }
  const __m512 va = _mm512_set1_ps(alpha);
  for (size_t i = 0; i < kRows; ++i) {
    // alpha times the sum, then added: two roundings, as on every path (this file is compiled
    // without FP contraction).
    const __m512 scaled = _mm512_mul_ps(va, c[i]);
    _mm512_storeu_ps(rows[i],
                     overwrite ? scaled : _mm512_add_ps(_mm512_loadu_ps(rows[i]), scaled));
  }
}

}  // namespace

__attribute__((target("avx512f"))) void micro_kernel_avx512(int64_t kc, const float* a,
                                                            const float* b, float* const* rows,
                                                            float alpha, bool overwrite) {
  const float* panels[1] = {b};
  tiles_avx512<1>(kc, a, panels, rows, alpha, overwrite);
}

__attribute__((target("avx512f"))) void wide_kernel_avx512(int64_t kc, const float* a,
                                                           const float* b0, const float* b1,
                                                           float* const* rows, float alpha,
                                                           bool overwrite) {
  const float* panels[2] = {b0, b1};
  tiles_avx512<2>(kc, a, panels, rows, alpha, overwrite);
}

}  // namespace etkit::kernels::gemm::detail
#endif
