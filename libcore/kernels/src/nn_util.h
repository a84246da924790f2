#pragma once

// Private helpers of the neural-network kernels (convolution, pooling, normalization, softmax):
// floating-dtype dispatch, double arguments and the [h, w] lists of pooling and convolution
// parameters. Header-only; nothing here allocates.

#include <cstddef>
#include <cstdint>
#include <span>

#include "etkit/runtime/evalue.h"
#include "etkit/runtime/kernel.h"
#include "etkit/runtime/tensor.h"
#include "etkit/kernels/kernel_util.h"

namespace etkit::kernels::nn {

/// Calls `f(TypeTag<T>{})` for float32 and float64; false for anything else.
template <typename F>
inline bool dispatch_float(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float: f(TypeTag<float>{}); return true;
    case ScalarType::Double: f(TypeTag<double>{}); return true;
    default: return false;
  }
}

/// Fails (InvalidType) unless `t` is float32 or float64.
inline bool check_float_dtype(KernelContext& ctx, const Tensor& t, const char* name) {
  if (t.dtype() != ScalarType::Float && t.dtype() != ScalarType::Double) {
    ctx.fail(ErrorCode::InvalidType, "%s has dtype %s, expected float32 or float64", name,
             scalar_type_name(t.dtype()));
    return false;
  }
  return true;
}

/// A `float` schema argument: a Double (or an Int, which a program may hold for whole values).
inline bool double_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
                       double* out) {
  const EValue* v = args[i];
  if (v->is_double()) {
    *out = v->to_double();
  } else if (v->is_int()) {
    *out = static_cast<double>(v->to_int());
  } else {
    ctx.fail(ErrorCode::InvalidType, "%s is %s, expected a double", name, tag_name(v->tag()));
    return false;
  }
  return true;
}

/// An optional tensor (`Tensor?`): null for None.
inline bool optional_tensor_arg(KernelContext& ctx, std::span<EValue*> args, size_t i,
                                const char* name, Tensor** out) {
  *out = nullptr;
  if (args[i]->is_none()) return true;
  *out = tensor_arg(ctx, args, i, name);
  return *out != nullptr;
}

/// A per-spatial-dimension parameter list (`int[2]`, `SymInt[]` of convolution): `count` values,
/// where a single value stands for all of them (PyTorch expands it) and, if `empty_default` is
/// non-null, an empty list means those values. Each value must be at least `min_value`.
inline bool spatial_list_arg(KernelContext& ctx, std::span<EValue*> args, size_t i,
                             const char* name, size_t count, const int64_t* empty_default,
                             int64_t min_value, int64_t* out) {
  bool present = false;
  std::span<const int64_t> list;
  if (!int_list_arg(ctx, args, i, name, false, &present, &list)) return false;
  if (list.empty() && empty_default != nullptr) {
    for (size_t k = 0; k < count; ++k) out[k] = empty_default[k];
    return true;
  }
  if (list.size() != 1 && list.size() != count) {
    ctx.fail(ErrorCode::InvalidArgument, "%s has %zu values, expected 1 or %zu", name,
             list.size(), count);
    return false;
  }
  for (size_t k = 0; k < count; ++k) {
    out[k] = list.size() == 1 ? list[0] : list[k];
    if (out[k] < min_value) {
      ctx.fail(ErrorCode::InvalidArgument, "%s has value %lld, expected at least %lld", name,
               static_cast<long long>(out[k]), static_cast<long long>(min_value));
      return false;
    }
    // Sizes are int32: a window parameter beyond that makes the output-size arithmetic of
    // convolution and pooling overflow (the fuzzer found one in max_pool2d).
    if (out[k] > INT32_MAX) {
      ctx.fail(ErrorCode::InvalidArgument, "%s %lld is larger than 2^31 - 1", name,
               static_cast<long long>(out[k]));
      return false;
    }
  }
  return true;
}

/// Fails (InvalidArgument) unless `t` has rank `lo` or `hi`.
inline bool check_rank(KernelContext& ctx, const Tensor& t, const char* name, int lo, int hi) {
  if (t.dim() != lo && t.dim() != hi) {
    ctx.fail(ErrorCode::InvalidArgument, "%s has sizes %s, expected a %d-D or %d-D tensor", name,
             SizesText(t.sizes()).text, lo, hi);
    return false;
  }
  return true;
}

/// The first index `x >= 0` with `x * step + offset >= 0`, and the end of the run of indices
/// with `x * step + offset < limit`, both clamped to [0, count]: the window of output positions
/// whose input position is in bounds (step > 0).
inline void valid_range(int64_t offset, int64_t step, int64_t limit, int64_t count, int64_t* lo,
                        int64_t* hi) {
  int64_t a = 0;
  int64_t b = 0;
  if (step == 1) {  // The common case without a division: convolution's im2col packing asks for
                    // it per row of every panel, and two 64-bit divisions cost it a fifth of its
                    // time.
    if (offset < 0) a = -offset;
    if (limit - offset > 0) b = limit - offset;
  } else {
    if (offset < 0) a = (-offset + step - 1) / step;
    if (limit - 1 - offset >= 0) b = (limit - 1 - offset) / step + 1;
  }
  *lo = a < count ? a : count;
  *hi = b < count ? b : count;
  if (*hi < *lo) *hi = *lo;
}

}  // namespace etkit::kernels::nn

namespace etkit::kernels::nn {

/// True if the last `count` dimensions of `t` are innermost in memory, in order, so that each
/// group of their elements (a "row") is one contiguous run starting at the memory index of its
/// first logical element.
inline bool trailing_dims_contiguous(const Tensor& t, int count) {
  const int rank = t.dim();
  for (int k = 0; k < count; ++k) {
    if (t.dim_order()[static_cast<size_t>(rank - count + k)] != rank - count + k) return false;
  }
  return true;
}

/// Memory index of logical element `i` of `t`; the direct index for a contiguous tensor.
inline int64_t memory_index(const Tensor& t, bool contiguous, int64_t i) {
  return contiguous ? i : logical_to_memory_index(t, i);
}

/// The sum of `n` contiguous values accumulated in `Acc`, with independent partial results, so
/// that GCC vectorizes it without reassociating a single accumulator.
template <typename Acc, typename T>
inline Acc sum_as(const T* x, int64_t n) {
  constexpr int kLanes = 16;
  Acc acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) acc[l] += static_cast<Acc>(x[i + l]);
  }
  Acc total = Acc(0);
  for (int l = 0; l < kLanes; ++l) total += acc[l];
  for (; i < n; ++i) total += static_cast<Acc>(x[i]);
  return total;
}

/// sum_as in the values' own type.
template <typename T>
inline T sum_of(const T* x, int64_t n) {
  return sum_as<T>(x, n);
}

/// The sum of (x[i] - mean)^2 over `n` contiguous values, in `Acc`, with sum_as's independent
/// partial results.
template <typename Acc, typename T>
inline Acc squared_deviations_as(const T* x, int64_t n, Acc mean) {
  constexpr int kLanes = 16;
  Acc acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const Acc d = static_cast<Acc>(x[i + l]) - mean;
      acc[l] += d * d;
    }
  }
  Acc total = Acc(0);
  for (int l = 0; l < kLanes; ++l) total += acc[l];
  for (; i < n; ++i) {
    const Acc d = static_cast<Acc>(x[i]) - mean;
    total += d * d;
  }
  return total;
}

}  // namespace etkit::kernels::nn
