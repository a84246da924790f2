// The float GEMM micro-kernels' selection (gemm.h): chosen once per process from CPUID, the
// fastest path this CPU supports among those that give the baseline's bits, unless a test forces
// one. Also the baseline micro-kernel: SSE2 (the
// x86-64 baseline), or plain C++ elsewhere.

#include <atomic>
#include <cstdint>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "etkit/kernels/gemm.h"
#include "gemm_avx2.h"

namespace etkit::kernels::gemm {
namespace {

constexpr int kMr = Blocking<float>::kMr;
constexpr int kNr = Blocking<float>::kNr;

// The 6x16 tile as two 6x8 halves, so that each half's twelve accumulators, its two B vectors
// and one broadcast stay in the 16 SSE registers. Every path sums over p in the same order.
#if defined(__SSE2__)
void micro_kernel_baseline(int64_t kc, const float* a, const float* b, float* const* rows,
                           float alpha, bool overwrite) {
  const __m128 va = _mm_set1_ps(alpha);
  for (int h = 0; h < 2; ++h) {
    __m128 c[kMr][2];
    for (int i = 0; i < kMr; ++i) c[i][0] = c[i][1] = _mm_setzero_ps();
    const float* ap = a;
    const float* bp = b + h * 8;
    for (int64_t p = 0; p < kc; ++p) {
      const __m128 b0 = _mm_load_ps(bp);
      const __m128 b1 = _mm_load_ps(bp + 4);
#pragma GCC unroll 6
      for (int i = 0; i < kMr; ++i) {
        const __m128 av = _mm_load1_ps(ap + i);
        c[i][0] = _mm_add_ps(c[i][0], _mm_mul_ps(av, b0));
        c[i][1] = _mm_add_ps(c[i][1], _mm_mul_ps(av, b1));
      }
      ap += kMr;
      bp += kNr;
    }
    for (int i = 0; i < kMr; ++i) {
      float* out = rows[i] + h * 8;
      for (int q = 0; q < 2; ++q) {
        const __m128 scaled = _mm_mul_ps(va, c[i][q]);
        _mm_storeu_ps(out + 4 * q,
                      overwrite ? scaled : _mm_add_ps(_mm_loadu_ps(out + 4 * q), scaled));
      }
    }
  }
}
#else
void micro_kernel_baseline(int64_t kc, const float* a, const float* b, float* const* rows,
                           float alpha, bool overwrite) {
  constexpr int kHalf = kNr / 2;
  for (int h = 0; h < 2; ++h) {
    float c[kMr][kHalf] = {};
    const float* ap = a;
    const float* bp = b + h * kHalf;
    for (int64_t p = 0; p < kc; ++p) {
      for (int i = 0; i < kMr; ++i) {
        for (int j = 0; j < kHalf; ++j) c[i][j] += ap[i] * bp[j];
      }
      ap += kMr;
      bp += kNr;
    }
    for (int i = 0; i < kMr; ++i) {
      float* out = rows[i] + h * kHalf;
      for (int j = 0; j < kHalf; ++j) out[j] = (overwrite ? 0.0f : out[j]) + alpha * c[i][j];
    }
  }
}
#endif

detail::MicroKernelF32 kernel_of(Path path) {
  switch (path) {
#if defined(ETKIT_GEMM_X86)
    case Path::kAvx2:
      return detail::micro_kernel_avx2;
    case Path::kAvx2Fma:
      return detail::micro_kernel_avx2_fma;
#endif
    default:
      return micro_kernel_baseline;
  }
}

// The default is the fastest path whose results equal the baseline's bit for bit: AVX2 with a
// separate multiply and add, never FMA. A fused multiply-add rounds once where the others round
// twice, so outputs (and every golden file and cross-machine diff of them) would depend on the
// machine, as DESIGN.md decides against for the float loops too. The price is speed: on this
// project's machines (AMD EPYC, idle) the AVX2 path runs at about 0.75x the FMA one (DESIGN.md,
// "GEMM is our own blocked kernel"); the FMA path stays for tests and for a caller that opts in
// with force_path.
Path best_path() {
  return path_supported(Path::kAvx2) ? Path::kAvx2 : Path::kBaseline;
}

struct Selection {
  std::atomic<Path> path;
  std::atomic<detail::MicroKernelF32> kernel;
  Selection() : path(best_path()), kernel(kernel_of(path.load())) {}
};

Selection& selection() {
  static Selection s;
  return s;
}

}  // namespace

const char* path_name(Path path) {
  switch (path) {
    case Path::kAvx2:
      return "avx2";
    case Path::kAvx2Fma:
      return "avx2+fma";
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
    case Path::kAvx2:
      return __builtin_cpu_supports("avx2");
    case Path::kAvx2Fma:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
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
  return true;
}

namespace detail {
MicroKernelF32 micro_kernel_f32() {
  return selection().kernel.load(std::memory_order_relaxed);
}
}  // namespace detail

}  // namespace etkit::kernels::gemm
