// The AVX-512 float GEMM micro-kernels (gemm_avx512.h): one 6x16 tile, or two one above the other,
// a row of a tile per 512-bit accumulator, one B vector and one broadcast of A per row and step
// of p, one fused multiply-add per element and step, in the order of every other path (so the
// same bits).

#include "gemm_avx512.h"

#if defined(ETKIT_GEMM_X86)
#include <immintrin.h>

#include <cstddef>

namespace etkit::kernels::gemm::detail {
namespace {

// kTiles tiles one above the other: rows[6 t + i] = row i of the tile of A panel a[t], all
// against the B panel b, in 6 kTiles accumulators.
template <size_t kTiles>
__attribute__((target("avx512f"), always_inline)) inline void tiles_avx512(
    int64_t kc, const float* const* a, const float* b, float* const* rows, float alpha,
    bool overwrite) {
  constexpr size_t kRows = 6 * kTiles;
  for (size_t i = 0; i < kRows; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(rows[i]), _MM_HINT_T0);
  }
  const float* panel[kTiles];
  for (size_t t = 0; t < kTiles; ++t) panel[t] = a[t];
  __m512 c[kRows];
  for (size_t i = 0; i < kRows; ++i) c[i] = _mm512_setzero_ps();
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 bv = _mm512_loadu_ps(b);
#pragma GCC unroll 12
    for (size_t i = 0; i < kRows; ++i) {
      c[i] = _mm512_fmadd_ps(_mm512_set1_ps(panel[i / 6][i % 6]), bv, c[i]);
    }
    for (size_t t = 0; t < kTiles; ++t) panel[t] += 6;
    b += 16;
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
  const float* panels[1] = {a};
  tiles_avx512<1>(kc, panels, b, rows, alpha, overwrite);
}

__attribute__((target("avx512f"))) void pair_kernel_avx512(int64_t kc, const float* a0,
                                                           const float* a1, const float* b,
                                                           float* const* rows, float alpha,
                                                           bool overwrite) {
  const float* panels[2] = {a0, a1};
  tiles_avx512<2>(kc, panels, b, rows, alpha, overwrite);
}

}  // namespace etkit::kernels::gemm::detail
#endif
