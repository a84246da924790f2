// The float GEMM micro-kernels' selection (gemm.h): chosen once per process from CPUID, the
// fastest path this CPU supports, unless a test forces one. Also the baseline micro-kernel, which
// gives the FMA path's bits on any CPU: each step of p is one fused multiply-add, rounded once to
// float, emulated exactly with SSE2 doubles on x86-64 (the baseline) and std::fma elsewhere.

#include <atomic>
#include <cmath>
#include <cstdint>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "etkit/kernels/gemm.h"
#include "gemm_avx2.h"
#include "gemm_avx512.h"

namespace etkit::kernels::gemm {
namespace {

constexpr int kMr = Blocking<float>::kMr;
constexpr int kNr = Blocking<float>::kNr;

#if defined(__SSE2__)
// fmaf(a, b, c) on two lanes held as doubles (each exactly a float), returned the same way. The
// product of two floats is exact in double (24 + 24 bits); the sum is rounded to double "to odd"
// (TwoSum gives its exact error e; an inexact sum with an even last bit moves one step towards
// e), and a sum rounded to odd with at least two bits to spare (53 >= 24 + 2) rounds to float
// exactly as the exact sum would (Boldo and Melquiond, "Emulation of FMA and correctly rounded
// sums: proved algorithms using rounding to odd", 2008). Infinities and NaNs make e a NaN, which
// leaves the sum alone.
inline __m128d fused_multiply_add(__m128d a, __m128d b, __m128d c) {
  const __m128d product = _mm_mul_pd(a, b);
  const __m128d sum = _mm_add_pd(product, c);
  const __m128d c_part = _mm_sub_pd(sum, product);
  const __m128d error = _mm_add_pd(_mm_sub_pd(product, _mm_sub_pd(sum, c_part)),
                                   _mm_sub_pd(c, c_part));
  const __m128i one = _mm_set1_epi64x(1);
  const __m128i bits = _mm_castpd_si128(sum);
  const __m128d inexact =
      _mm_and_pd(_mm_cmpneq_pd(error, _mm_setzero_pd()), _mm_cmpord_pd(error, error));
  // The last bit's test is on the low 32 bits of each lane, spread to the whole lane.
  const __m128i even = _mm_shuffle_epi32(
      _mm_cmpeq_epi32(_mm_and_si128(bits, one), _mm_setzero_si128()), _MM_SHUFFLE(2, 2, 0, 0));
  // One step away from zero when e has the sum's sign, towards zero otherwise.
  const __m128i towards_zero = _mm_srli_epi64(_mm_xor_si128(_mm_castpd_si128(error), bits), 63);
  const __m128i step = _mm_sub_epi64(one, _mm_add_epi64(towards_zero, towards_zero));
  const __m128i move = _mm_and_si128(_mm_and_si128(_mm_castpd_si128(inexact), even), step);
  const __m128d odd = _mm_castsi128_pd(_mm_add_epi64(bits, move));
  return _mm_cvtps_pd(_mm_cvtpd_ps(odd));
}

// The 6x16 tile two columns at a time: six accumulators of two lanes.
void micro_kernel_baseline(int64_t kc, const float* a, const float* b, float* const* rows,
                           float alpha, bool overwrite) {
  for (int j = 0; j < kNr; j += 2) {
    __m128d c[kMr];
    for (int i = 0; i < kMr; ++i) c[i] = _mm_setzero_pd();
    const float* ap = a;
    const float* bp = b + j;
    for (int64_t p = 0; p < kc; ++p) {
      const __m128d bv = _mm_cvtps_pd(
          _mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(bp))));
#pragma GCC unroll 6
      for (int i = 0; i < kMr; ++i) {
        c[i] = fused_multiply_add(_mm_set1_pd(static_cast<double>(ap[i])), bv, c[i]);
      }
      ap += kMr;
      bp += kNr;
    }
    for (int i = 0; i < kMr; ++i) {
      float sums[4];
      _mm_storeu_ps(sums, _mm_cvtpd_ps(c[i]));
      float* out = rows[i] + j;
      for (int q = 0; q < 2; ++q) {
        const float scaled = alpha * sums[q];
        out[q] = overwrite ? scaled : out[q] + scaled;
      }
    }
  }
}
#else
void micro_kernel_baseline(int64_t kc, const float* a, const float* b, float* const* rows,
                           float alpha, bool overwrite) {
  float c[kMr][kNr] = {};
  for (int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < kMr; ++i) {
      for (int j = 0; j < kNr; ++j) c[i][j] = std::fma(a[i], b[j], c[i][j]);
    }
    a += kMr;
    b += kNr;
  }
  for (int i = 0; i < kMr; ++i) {
    for (int j = 0; j < kNr; ++j) {
      const float scaled = alpha * c[i][j];
      rows[i][j] = overwrite ? scaled : rows[i][j] + scaled;
    }
  }
}
#endif

detail::MicroKernelF32 kernel_of(Path path) {
  switch (path) {
#if defined(ETKIT_GEMM_X86)
    case Path::kAvx2Fma:
      return detail::micro_kernel_avx2_fma;
    case Path::kAvx512:
      return detail::micro_kernel_avx512;
#endif
    default:
      return micro_kernel_baseline;
  }
}

detail::WideKernelF32 wide_of(Path path) {
#if defined(ETKIT_GEMM_X86)
  if (path == Path::kAvx512) return detail::wide_kernel_avx512;
#endif
  (void)path;
  return nullptr;
}

// Every path gives the same bits, so the default is simply the fastest the CPU has.
Path best_path() {
  if (path_supported(Path::kAvx512)) return Path::kAvx512;
  return path_supported(Path::kAvx2Fma) ? Path::kAvx2Fma : Path::kBaseline;
}

struct Selection {
  std::atomic<Path> path;
  std::atomic<detail::MicroKernelF32> kernel;
  std::atomic<detail::WideKernelF32> wide;
  Selection() : path(best_path()), kernel(kernel_of(path.load())), wide(wide_of(path.load())) {}
};

Selection& selection() {
  static Selection s;
  return s;
}

}  // namespace

const char* path_name(Path path) {
  switch (path) {
    case Path::kAvx2Fma:
      return "avx2+fma";
    case Path::kAvx512:
      return "avx512";
    default:
      return "baseline";
  }
}

bool path_from_name(std::string_view name, Path* path) {
  for (Path candidate : kPaths) {
    if (name == path_name(candidate)) {
      *path = candidate;
      return true;
    }
  }
  return false;
}

bool path_supported(Path path) {
  switch (path) {
    case Path::kBaseline:
      return true;
#if defined(ETKIT_GEMM_X86)
    case Path::kAvx2Fma:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Path::kAvx512:
      return __builtin_cpu_supports("avx512f");
#endif
    default:
      return false;
  }
}

Path active_path() { return selection().path.load(std::memory_order_relaxed); }

bool force_path(Path path) {
  if (!path_supported(path)) return false;
  Selection& s = selection();
  s.path.store(path, std::memory_order_relaxed);
  s.kernel.store(kernel_of(path), std::memory_order_relaxed);
  s.wide.store(wide_of(path), std::memory_order_relaxed);
  return true;
}

namespace detail {
MicroKernelF32 micro_kernel_f32() {
  return selection().kernel.load(std::memory_order_relaxed);
}
WideKernelF32 wide_kernel_f32() { return selection().wide.load(std::memory_order_relaxed); }
}  // namespace detail

}  // namespace etkit::kernels::gemm
