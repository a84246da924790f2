#pragma once

// The AVX-512 float GEMM micro-kernels (gemm_avx512.cpp), compiled for its instruction set by a
// function attribute; only called after CPUID said the CPU (and the OS) has it
// (gemm_dispatch.cpp).

#include <cstdint>

#include "gemm_avx2.h"  // ETKIT_GEMM_X86

namespace etkit::kernels::gemm::detail {

#if defined(ETKIT_GEMM_X86)
// MicroKernelF32 (gemm.h) with 512-bit fused multiply-adds: a row of the 6x16 tile per register.
void micro_kernel_avx512(int64_t kc, const float* a, const float* b, float* const* rows,
                         float alpha, bool overwrite);
// WideKernelF32 (gemm.h): the 6x32 of two tiles side by side in twelve registers.
void wide_kernel_avx512(int64_t kc, const float* a, const float* b0, const float* b1,
                        float* const* rows, float alpha, bool overwrite);
#endif

}  // namespace etkit::kernels::gemm::detail
