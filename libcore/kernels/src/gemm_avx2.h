#pragma once

// The AVX2 + FMA float GEMM micro-kernel (gemm_avx2.cpp), compiled for its instruction sets by
// a function attribute; only called after CPUID said the CPU has them (gemm_dispatch.cpp).

#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ETKIT_GEMM_X86 1
#endif

namespace etkit::kernels::gemm::detail {

#if defined(ETKIT_GEMM_X86)
// MicroKernelF32 (gemm.h) with 256-bit fused multiply-adds.
void micro_kernel_avx2_fma(int64_t kc, const float* a, const float* b, float* const* rows,
                           float alpha, bool overwrite);
#endif

}  // namespace etkit::kernels::gemm::detail
