#pragma once

// Private helpers of the kernels that write a Scalar into tensors (full, full_like, scalar_tensor,
// constant_pad_nd): the value's bytes in a given dtype, checked with PyTorch's overflow rule
// (`check_scalar_fits`, kernel_util.h).

#include <cstdint>
#include <cstring>

#include "etkit/kernels/kernel_util.h"

namespace etkit::kernels {

/// Writes `value` converted to `dtype` (a computed dtype, Half or BFloat16: through float32,
/// rounded to nearest even) into the first bytes of `bytes`. Fails (InvalidArgument) if it does
/// not fit, naming `name`; (InvalidType) if `dtype` is not one of those.
inline bool scalar_to_bytes(KernelContext& ctx, const Scalar& value, ScalarType dtype,
                            const char* name, uint64_t* bytes) {
  if (is_float16_type(dtype)) {
    if (!check_scalar_fits(ctx, value, dtype, name)) return false;
    const float f = value.to<float>();
    const uint16_t bits =
        dtype == ScalarType::Half ? float_to_half_bits(f) : float_to_bfloat16_bits(f);
    std::memcpy(bytes, &bits, sizeof(bits));
    return true;
  }
  const bool known = dispatch_dtype(dtype, [&](auto tag) {
    using C = typename decltype(tag)::type;
    const C v = value.to<C>();
    std::memcpy(bytes, &v, sizeof(C));
  });
  if (!known) {
    ctx.fail(ErrorCode::InvalidType,
             "out has dtype %s, expected one of bool, uint8, int8, int16, int32, int64, float16, "
             "bfloat16, float32, float64",
             scalar_type_name(dtype));
    return false;
  }
  return check_scalar_fits(ctx, value, dtype, name);
}

/// Writes the `elem_size` bytes (1, 2, 4 or 8) at `value` to `numel` consecutive elements.
inline void fill_flat(void* data, int64_t numel, const uint64_t* value, size_t elem_size) {
  auto run = [&](auto tag) {
    using U = typename decltype(tag)::type;
    U v;
    std::memcpy(&v, value, sizeof(U));
    U* d = static_cast<U*>(data);
    for (int64_t i = 0; i < numel; ++i) d[i] = v;
  };
  switch (elem_size) {
    case 1: run(TypeTag<uint8_t>{}); break;
    case 2: run(TypeTag<uint16_t>{}); break;
    case 4: run(TypeTag<uint32_t>{}); break;
    default: run(TypeTag<uint64_t>{}); break;
  }
}

}  // namespace etkit::kernels
