#pragma once

// Helpers of the pointwise kernels (activation, comparison, where, quantize, div and the
// floating unary ops) that `elementwise.h` does not cover: a loop whose compute type differs
// from the output's dtype and that takes up to three inputs, broadcasting of three shapes,
// and PyTorch's can_cast.
//
// Nothing here allocates. When every input has the output's dtype and the compute type is the
// output's, `map_to` hands over to `elementwise` (its vectorized flat paths).

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <type_traits>

#include "etkit/runtime/tensor.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/kernel_util.h"

namespace etkit::kernels::pointwise {

/// PyTorch's `canCast(from, to)`: no floating to integral, no non-bool to bool.
inline bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_type(from) && is_integral_type(to, false)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

// scalar_fits and ScalarText live in kernel_util.h; activation_ops.cpp still names them as
// pointwise:: members.
using kernels::scalar_fits;
using kernels::ScalarText;

/// The broadcast shape of `n` tensors (PyTorch rules); fails (InvalidArgument) naming the first
/// pair that does not broadcast.
template <size_t N>
bool broadcast_all(KernelContext& ctx, const std::array<const Tensor*, N>& t,
                   const std::array<const char*, N>& names, Shape* out) {
  int rank = 0;
  for (const Tensor* x : t) rank = x->dim() > rank ? x->dim() : rank;
  out->rank = rank;
  for (int i = 0; i < rank; ++i) {
    int32_t size = 1;
    size_t owner = 0;
    for (size_t k = 0; k < N; ++k) {
      const int d = i - (rank - t[k]->dim());
      const int32_t s = d >= 0 ? t[k]->sizes()[static_cast<size_t>(d)] : 1;
      if (s == 1) continue;
      if (size != 1 && s != size) {
        ctx.fail(ErrorCode::InvalidArgument,
                 "%s has sizes %s and %s has sizes %s, which do not broadcast (dimension %d: %d "
                 "vs %d)",
                 names[owner], SizesText(t[owner]->sizes()).text, names[k],
                 SizesText(t[k]->sizes()).text, i, size, s);
        return false;
      }
      size = s;
      owner = k;
    }
    out->sizes[i] = size;
  }
  return true;
}

namespace detail {

template <typename C>
inline C load(const Operand& op, bool typed, int64_t index) {
  return typed ? static_cast<const C*>(op.data)[index] : load_as<C>(op.data, op.dtype, index);
}

}  // namespace detail

/// out[i] = convert<Out>(op(in[0][i], ..., in[N-1][i])), each input read and converted to
/// `Compute` (the dtype PyTorch computes the operator in), for N in 1..3. Reading a bool as an
/// integer or float gives 0/1. Out must be `Out`'s dtype, or Half or BFloat16 with `Out` float;
/// inputs may have any arithmetic dtype.
template <typename Out, typename Compute, size_t N, typename Op>
void map_to(Tensor& out, const std::array<Operand, N>& in, Op op) {
  static_assert(N >= 1 && N <= 3, "map_to supports one to three inputs");
  if constexpr (std::is_same_v<Out, float>) {
    // A Half or BFloat16 out (dispatch_compute gave float): round each result on store.
    if (is_float16_type(out.dtype())) {
      elementwise_float16<Compute, N>(out, in, op);
      return;
    }
  }
  if constexpr (std::is_same_v<Compute, float>) {
    // 16-bit inputs into another dtype (a comparison's bool, a float32 out): widen by blocks.
    if (has_float16_input(in)) {
      elementwise_from_float16<Out, N>(out, in, op);
      return;
    }
  }
  if constexpr (std::is_same_v<Out, Compute> && N <= 2) {
    bool same = true;
    for (const Operand& o : in) same = same && o.dtype == out.dtype();
    if (same) {
      elementwise<Out, N>(out, in, op);
      return;
    }
  }
  Out* o = out.data_as<Out>();
  std::array<bool, N> typed;
  for (size_t k = 0; k < N; ++k) typed[k] = in[k].dtype == dtype_of<Compute>();
  for_each_run<N>(out, in, [&](int64_t pos, const std::array<int64_t, N>& base,
                               const std::array<int64_t, N>& step, int64_t count) {
    for (int64_t j = 0; j < count; ++j) {
      if constexpr (N == 1) {
        o[pos + j] = convert<Out>(op(detail::load<Compute>(in[0], typed[0], base[0] + j * step[0])));
      } else if constexpr (N == 2) {
        o[pos + j] = convert<Out>(op(detail::load<Compute>(in[0], typed[0], base[0] + j * step[0]),
                                     detail::load<Compute>(in[1], typed[1], base[1] + j * step[1])));
      } else {
        o[pos + j] = convert<Out>(op(detail::load<Compute>(in[0], typed[0], base[0] + j * step[0]),
                                     detail::load<Compute>(in[1], typed[1], base[1] + j * step[1]),
                                     detail::load<Compute>(in[2], typed[2], base[2] + j * step[2])));
      }
    }
  });
}

/// Calls `f(TypeTag<Out>{}, TypeTag<Compute>{})` for a pair of arithmetic dtypes (Half and
/// BFloat16 as float, dispatch_compute); false if either is not one.
template <typename F>
bool dispatch_pair(ScalarType out, ScalarType compute, F&& f) {
  bool ok = false;
  dispatch_compute(out, [&](auto out_tag) {
    ok = dispatch_compute(compute, [&](auto compute_tag) { f(out_tag, compute_tag); });
  });
  return ok;
}

/// Fails (InvalidType) unless `out` has a floating dtype etkit computes with (Half and BFloat16
/// through float32).
inline bool check_floating_out(KernelContext& ctx, const Tensor& out) {
  if (!is_floating_type(out.dtype())) {
    ctx.fail(ErrorCode::InvalidType, "out has dtype %s, expected a floating type",
             scalar_type_name(out.dtype()));
    return false;
  }
  return true;
}

/// The result dtype of `rt`, or fails (InvalidType) naming `inputs`.
inline bool result_dtype(KernelContext& ctx, const ResultType& rt, const char* inputs,
                         ScalarType* out) {
  if (!rt.get(out)) {
    ctx.fail(ErrorCode::InvalidType, "%s have dtypes etkit cannot promote", inputs);
    return false;
  }
  return true;
}

/// The tensor-tensor prelude of binary pointwise kernels: self, other and out must have dtypes
/// the kernels compute with, and self and other must promote; `*common` is their result dtype.
inline bool promote_tensors(KernelContext& ctx, const Tensor& self, const Tensor& other,
                            const Tensor& out, ScalarType* common) {
  if (!check_arithmetic_dtype(ctx, self, "self") || !check_arithmetic_dtype(ctx, other, "other") ||
      !check_arithmetic_dtype(ctx, out, "out")) {
    return false;
  }
  // Tensors of one dtype promote to it whatever their ranks (the common case, and per call).
  if (self.dtype() == other.dtype()) {
    *common = self.dtype();
    return true;
  }
  ResultType rt;
  rt.add_tensor(self);
  rt.add_tensor(other);
  return result_dtype(ctx, rt, "self and other", common);
}

/// Fails (InvalidType) unless `out` has `expected`, the promoted dtype of `inputs`.
inline bool check_promoted_out(KernelContext& ctx, const Tensor& out, ScalarType expected,
                               const char* inputs) {
  if (out.dtype() != expected) {
    ctx.fail(ErrorCode::InvalidType, "out has dtype %s, expected %s (the promoted dtype of %s)",
             scalar_type_name(out.dtype()), scalar_type_name(expected), inputs);
    return false;
  }
  return true;
}

}  // namespace etkit::kernels::pointwise
