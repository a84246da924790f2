#pragma once

// A Scalar argument as a rank-0 tensor, so that an operator's `.Scalar_out` overload can run its
// `.Tensor_out` kernel: the scalar is stored in PyTorch's result type of (self, scalar), which a
// rank-0 operand of that dtype promotes to again, so the tensor kernel computes in the same dtype
// the scalar overload would. Lives on the caller's stack; nothing allocates.

#include <cstdint>
#include <cstring>

#include "etkit/kernels/kernel_util.h"
#include "etkit/runtime/evalue.h"
#include "pointwise_util.h"

namespace etkit::kernels {

struct ScalarTensor {
  alignas(8) unsigned char bytes[8] = {};
  Tensor tensor;
  EValue value;

  ScalarTensor() = default;
  ScalarTensor(const ScalarTensor&) = delete;
  ScalarTensor& operator=(const ScalarTensor&) = delete;
};

/// Fills `st` with `s` as a rank-0 tensor of the result type of (`self`, `s`); fails
/// (InvalidType) for dtypes etkit does not compute with, (InvalidArgument) when `s` does not fit
/// that dtype (PyTorch refuses `int8_tensor + 300`).
inline bool make_scalar_tensor(KernelContext& ctx, const Tensor& self, const Scalar& s,
                               const char* name, ScalarTensor* st) {
  if (!check_arithmetic_dtype(ctx, self, "self")) return false;
  ResultType rt;
  rt.add_tensor(self);
  rt.add_scalar(s);
  ScalarType common;
  if (!pointwise::result_dtype(ctx, rt, "self and other", &common)) return false;
  // With a Half or BFloat16 result PyTorch keeps the scalar in float32 (its opmath type) instead
  // of rounding it to 16 bits first. Beside a tensor of rank > 0 a rank-0 float32 tensor promotes
  // to the 16-bit dtype again; beside a rank-0 one it would not, so there the scalar is rounded.
  const bool keep_float = is_float16_type(common) && self.dim() > 0;
  if (keep_float) common = ScalarType::Float;
  if (!check_scalar_fits(ctx, s, is_float16_type(common) ? ScalarType::Float : common, name)) {
    return false;
  }
  if (is_float16_type(common)) {
    const float f = s.to<float>();
    const uint16_t bits =
        common == ScalarType::Half ? float_to_half_bits(f) : float_to_bfloat16_bits(f);
    std::memcpy(st->bytes, &bits, sizeof(bits));
  } else {
    dispatch_dtype(common, [&](auto tag) {
      using C = typename decltype(tag)::type;
      const C v = s.to<C>();
      std::memcpy(st->bytes, &v, sizeof(C));
    });
  }
  st->tensor = Tensor(common, {}, {}, {}, st->bytes);
  st->value = EValue::from_tensor(&st->tensor);
  return true;
}

/// Runs `tensor_kernel` with argument `index` (a Scalar named `name`) replaced by its rank-0
/// tensor, promoted against the tensor at `tensor_index` (named `tensor_name`).
inline void run_with_scalar_tensor(KernelContext& ctx, std::span<EValue*> args, size_t index,
                                   size_t num_schema_args, const char* name,
                                   void (*tensor_kernel)(KernelContext&, std::span<EValue*>),
                                   size_t tensor_index = 0, const char* tensor_name = "self") {
  if (!check_num_args(ctx, args, num_schema_args)) return;
  Tensor* self = tensor_arg(ctx, args, tensor_index, tensor_name);
  if (self == nullptr) return;
  Scalar s;
  if (!scalar_arg(ctx, args, index, name, &s)) return;
  ScalarTensor st;
  if (!make_scalar_tensor(ctx, *self, s, name, &st)) return;
  EValue* replaced[8];
  for (size_t i = 0; i < args.size() && i < 8; ++i) replaced[i] = args[i];
  replaced[index] = &st.value;
  tensor_kernel(ctx, std::span<EValue*>(replaced, args.size()));
}

}  // namespace etkit::kernels
