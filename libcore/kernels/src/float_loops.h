#pragma once

// The contiguous float loops of exp.out, sigmoid.out, silu.out, gelu.out (tanh), ceil, floor,
// round and trunc, and fmod and remainder, compiled for more than one x86-64 ISA and chosen once
// per process.
//
// The library is built for baseline x86-64 (SSE2), where these loops are compute-bound: fast_exp
// is some twenty float operations per element, four elements a vector. A copy built for AVX2
// does eight a vector (bench_elementwise.cpp measures the kernels against memcpy). `float_loops()` picks
// it when the CPU (and the OS, for the YMM state) supports AVX2, else the baseline copy; other
// architectures always get the baseline. The choice is made once per process.
//
// Both copies give the same bits, on every machine: they run the same IEEE operations in the same
// order (elementwise, no reductions), and the AVX2 copy is built without FMA, so no multiply-add
// is fused into one rounding. The strided loops elsewhere (elementwise.h's general path) call the
// same fast_exp inline, so a tensor's layout does not change its results either; the unit tests
// compare the two paths bit for bit.

#include <cstdint>

namespace etkit::kernels {

/// out[i] = f(in[i]) for i in [0, n); `in` and `out` may be the same array.
using FloatLoop = void (*)(const float* in, float* out, int64_t n);

/// out[i] = f(a[i], b[i]) for i in [0, n); `out` may be `a` or `b`.
using FloatLoop2 = void (*)(const float* a, const float* b, float* out, int64_t n);

/// One binary function's loops by broadcast: both arrays walk, or one is a single element read
/// for every i.
struct FloatLoops2 {
  FloatLoop2 both;      ///< f(a[i], b[i])
  FloatLoop2 scalar_a;  ///< f(a[0], b[i])
  FloatLoop2 scalar_b;  ///< f(a[i], b[0])
};

struct FloatLoops {
  FloatLoop exp;        ///< exp_of (fast_exp)
  FloatLoop sigmoid;    ///< sigmoid_of
  FloatLoop silu;       ///< silu_of
  FloatLoop gelu_tanh;  ///< gelu_tanh_of
  FloatLoop ceil;       ///< ceil_of (round_math.h)
  FloatLoop floor;      ///< floor_of
  FloatLoop round;      ///< round_of (half to even)
  FloatLoop trunc;      ///< trunc_of
  FloatLoops2 fmod;       ///< fmod_float (fmod_math.h)
  FloatLoops2 remainder;  ///< remainder_float
};

/// The loops for this machine, chosen on first use (thread-safe; allocates nothing).
const FloatLoops& float_loops();

}  // namespace etkit::kernels
