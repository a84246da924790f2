#pragma once

// Half and BFloat16 in the arithmetic kernels. As PyTorch's CPU kernels do, they compute 16-bit
// floats in float32 and round the result once, on store: a kernel widens its inputs to float32,
// runs its float32 code, and narrows what it writes. These are the array conversions it uses
// (the element ones are etkit/runtime/half.h; these give the same bits, faster).

#include <cstdint>
#include <type_traits>

#include "etkit/runtime/half.h"
#include "etkit/runtime/scalar_type.h"

namespace etkit::kernels {

/// out[i] = in[i] as float32, for `n` 16-bit floats of dtype `t` (Half or BFloat16). Exact, but
/// for a signaling Half NaN, which may come back quiet (F16C sets the quiet bit).
void widen_float16(const uint16_t* in, ScalarType t, float* out, int64_t n);

/// out[i] = in[i] rounded to dtype `t` (Half or BFloat16): to nearest, ties to even, NaN and
/// overflow as float_to_half_bits and float_to_bfloat16_bits write them.
void narrow_float16(const float* in, ScalarType t, uint16_t* out, int64_t n);

/// `x` rounded to dtype `t` and read back when `t` is Half or BFloat16 (a value as a 16-bit
/// tensor would hold it); `x` itself for any other dtype or a non-float `C`.
template <typename C>
inline C round_to_dtype(C x, ScalarType t) {
  if constexpr (std::is_same_v<C, float>) {
    if (t == ScalarType::Half) return half_bits_to_float(float_to_half_bits(x));
    if (t == ScalarType::BFloat16) return bfloat16_bits_to_float(float_to_bfloat16_bits(x));
  }
  return x;
}

}  // namespace etkit::kernels
