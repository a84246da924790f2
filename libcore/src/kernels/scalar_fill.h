#pragma once

// Private helpers of the kernels that write a Scalar into tensors (full, full_like, scalar_tensor,
// constant_pad_nd): PyTorch's overflow check on the value and its bytes in a given dtype.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/kernel_util.h"

namespace etkit::kernels {

/// Whether `value` fits the C++ type `C` without overflow (PyTorch refuses the fill otherwise).
template <typename C>
bool scalar_fits(const Scalar& value) {
  if constexpr (std::is_same_v<C, bool>) {
    return true;
  } else if constexpr (std::is_floating_point_v<C>) {
    if (!value.is_floating() || !std::isfinite(value.d)) return true;
    return std::fabs(value.d) <= static_cast<double>(std::numeric_limits<C>::max());
  } else {
    constexpr auto kMin = std::numeric_limits<C>::min();
    constexpr auto kMax = std::numeric_limits<C>::max();
    switch (value.kind) {
      case Scalar::Kind::Bool: return true;
      case Scalar::Kind::Int:
        return value.i >= static_cast<int64_t>(kMin) && value.i <= static_cast<int64_t>(kMax);
      case Scalar::Kind::Double:
        // kMax + 1 is a power of two, exact in double even for int64.
        return std::isfinite(value.d) && value.d >= static_cast<double>(kMin) &&
               value.d < static_cast<double>(kMax) + 1.0;
    }
    return false;
  }
}

/// Writes `value` converted to `dtype` (a computed dtype) into the first bytes of `bytes`.
/// Fails (InvalidArgument) if it does not fit, naming `name`; (InvalidType) if `dtype` is not a
/// computed dtype.
inline bool scalar_to_bytes(KernelContext& ctx, const Scalar& value, ScalarType dtype,
                            const char* name, uint64_t* bytes) {
  bool fits = true;
  const bool known = dispatch_dtype(dtype, [&](auto tag) {
    using C = typename decltype(tag)::type;
    fits = scalar_fits<C>(value);
    const C v = value.to<C>();
    std::memcpy(bytes, &v, sizeof(C));
  });
  if (!known) {
    ctx.fail(ErrorCode::InvalidType,
             "out has dtype %s, expected one of bool, uint8, int8, int16, int32, int64, float32, "
             "float64",
             scalar_type_name(dtype));
    return false;
  }
  if (!fits) {
    if (value.is_floating()) {
      ctx.fail(ErrorCode::InvalidArgument, "%s %g does not fit dtype %s", name, value.d,
               scalar_type_name(dtype));
    } else {
      ctx.fail(ErrorCode::InvalidArgument, "%s %lld does not fit dtype %s", name,
               static_cast<long long>(value.i), scalar_type_name(dtype));
    }
    return false;
  }
  return true;
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
