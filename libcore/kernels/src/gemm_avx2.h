#pragma once

// The AVX2 float GEMM micro-kernels (gemm_avx2.cpp), compiled for their instruction sets by
// function attributes; only called after CPUID said the CPU has them (gemm_dispatch.cpp).

#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ETKIT_GEMM_X86 1
#endif

namespace etkit::kernels::gemm::detail {

#if defined(ETKIT_GEMM_X86)
// MicroKernelF32 (gemm.h) with 256-bit multiplies and adds.
void micro_kernel_avx2(int64_t kc, const float* a, const float* b, float* const* rows,
                       float alpha, bool overwrite);
// MicroKernelF32 with fused multiply-adds (one rounding per step).
void micro_kernel_avx2_fma(int64_t kc, const float* a, const float* b, float* const* rows,
                           float alpha, bool overwrite);
#endif

}  // namespace etkit::kernels::gemm::detail
