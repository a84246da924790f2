// The contiguous float loops of exp.out, sigmoid.out, silu.out, gelu.out (tanh), the rounding
// ops, fmod and remainder, once per ISA; see float_loops.h.

#include "float_loops.h"

#include <cmath>

#include "etkit/kernels/fast_math.h"
#include "fmod_math.h"
#include "round_math.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ETKIT_FLOAT_LOOPS_AVX2 1
#endif

namespace etkit::kernels {
namespace {

// The loop bodies are always_inline, so each ISA's function below gets its own vectorized copy.
[[gnu::always_inline]] inline void exp_loop(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = exp_of(in[i]);
}
[[gnu::always_inline]] inline void sigmoid_loop(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = sigmoid_of(in[i]);
}
[[gnu::always_inline]] inline void silu_loop(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = silu_of(in[i]);
}
[[gnu::always_inline]] inline void gelu_tanh_loop(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = gelu_tanh_of(in[i]);
}

[[gnu::always_inline]] inline void ceil_loop(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = ceil_of(in[i]);
}
[[gnu::always_inline]] inline void floor_loop(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = floor_of(in[i]);
}
[[gnu::always_inline]] inline void round_loop(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = round_of(in[i]);
}
[[gnu::always_inline]] inline void trunc_loop(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = trunc_of(in[i]);
}

void exp_baseline(const float* in, float* out, int64_t n) { exp_loop(in, out, n); }
void sigmoid_baseline(const float* in, float* out, int64_t n) { sigmoid_loop(in, out, n); }
void silu_baseline(const float* in, float* out, int64_t n) { silu_loop(in, out, n); }
void gelu_tanh_baseline(const float* in, float* out, int64_t n) { gelu_tanh_loop(in, out, n); }
void ceil_baseline(const float* in, float* out, int64_t n) { ceil_loop(in, out, n); }
void floor_baseline(const float* in, float* out, int64_t n) { floor_loop(in, out, n); }
void round_baseline(const float* in, float* out, int64_t n) { round_loop(in, out, n); }
void trunc_baseline(const float* in, float* out, int64_t n) { trunc_loop(in, out, n); }
template <bool kRemainder, int kStepA, int kStepB>
void fmod_baseline(const float* a, const float* b, float* out, int64_t n) {
  fmod_loop<false, kRemainder, kStepA, kStepB>(a, b, out, n);
}
constexpr FloatLoops2 kFmodBaseline = {fmod_baseline<false, 1, 1>, fmod_baseline<false, 0, 1>,
                                       fmod_baseline<false, 1, 0>};
constexpr FloatLoops2 kRemainderBaseline = {
    fmod_baseline<true, 1, 1>, fmod_baseline<true, 0, 1>, fmod_baseline<true, 1, 0>};
constexpr FloatLoops kBaseline = {exp_baseline,   sigmoid_baseline,   silu_baseline,
                                  gelu_tanh_baseline, ceil_baseline,  floor_baseline,
                                  round_baseline, trunc_baseline,     kFmodBaseline,
                                  kRemainderBaseline};

#ifdef ETKIT_FLOAT_LOOPS_AVX2
// AVX2 without FMA, so that the results are the baseline's bits (float_loops.h).
[[gnu::target("avx2")]] void exp_avx2(const float* in, float* out, int64_t n) {
  exp_loop(in, out, n);
}
[[gnu::target("avx2")]] void sigmoid_avx2(const float* in, float* out, int64_t n) {
  sigmoid_loop(in, out, n);
}
[[gnu::target("avx2")]] void silu_avx2(const float* in, float* out, int64_t n) {
  silu_loop(in, out, n);
}
[[gnu::target("avx2")]] void gelu_tanh_avx2(const float* in, float* out, int64_t n) {
  gelu_tanh_loop(in, out, n);
}
// Rounding has an instruction from SSE4.1 on (vroundps), which GCC emits for the libm calls
// here (with -fno-trapping-math); round_math.h's integer trick, which the baseline needs, does
// not vectorize for AVX2. Both are exact: the unit tests compare them with libm bit for bit.
[[gnu::target("avx2")]] void ceil_avx2(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::ceil(in[i]);
}
[[gnu::target("avx2")]] void floor_avx2(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::floor(in[i]);
}
[[gnu::target("avx2")]] void round_avx2(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::nearbyint(in[i]);  // half to even
}
[[gnu::target("avx2")]] void trunc_avx2(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::trunc(in[i]);
}
template <bool kRemainder, int kStepA, int kStepB>
[[gnu::target("avx2")]] void fmod_avx2(const float* a, const float* b, float* out, int64_t n) {
  fmod_loop<false, kRemainder, kStepA, kStepB>(a, b, out, n);
}
// fmod and remainder are exact on every path, so fusing changes no bit there: these two may use
// FMA (fmod_fma_block), on a CPU that has it.
template <bool kRemainder, int kStepA, int kStepB>
[[gnu::target("avx2,fma")]] void fmod_fma(const float* a, const float* b, float* out,
                                          int64_t n) {
  fmod_loop<true, kRemainder, kStepA, kStepB>(a, b, out, n);
}
constexpr FloatLoops2 kFmodFma = {fmod_fma<false, 1, 1>, fmod_fma<false, 0, 1>,
                                  fmod_fma<false, 1, 0>};
constexpr FloatLoops2 kRemainderFma = {fmod_fma<true, 1, 1>, fmod_fma<true, 0, 1>,
                                       fmod_fma<true, 1, 0>};
constexpr FloatLoops2 kFmodAvx2 = {fmod_avx2<false, 1, 1>, fmod_avx2<false, 0, 1>,
                                   fmod_avx2<false, 1, 0>};
constexpr FloatLoops2 kRemainderAvx2 = {fmod_avx2<true, 1, 1>, fmod_avx2<true, 0, 1>,
                                        fmod_avx2<true, 1, 0>};
constexpr FloatLoops kAvx2 = {exp_avx2,  sigmoid_avx2, silu_avx2,    gelu_tanh_avx2,
                              ceil_avx2, floor_avx2,   round_avx2,   trunc_avx2,
                              kFmodAvx2, kRemainderAvx2};
#endif

FloatLoops choose() {
#ifdef ETKIT_FLOAT_LOOPS_AVX2
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) {
    FloatLoops loops = kAvx2;
    if (__builtin_cpu_supports("fma")) {
      loops.fmod = kFmodFma;
      loops.remainder = kRemainderFma;
    }
    return loops;
  }
#endif
  return kBaseline;
}

}  // namespace

const FloatLoops& float_loops() {
  static const FloatLoops chosen = choose();
  return chosen;
}

}  // namespace etkit::kernels
