#pragma once

// Half and BFloat16 for the kernels that compute in float32 internally (matmul, convolution,
// softmax, norms, reductions, pooling): the kernel runs unchanged on float32 copies of its 16-bit
// tensors, and each out is rounded back once, on store. That is what PyTorch's CPU kernels compute
// for these operators (their opmath type is float), and it keeps one implementation per operator
// instead of a 16-bit instantiation of every loop.
//
// The copies come from the call's temp allocator (a 16-bit tensor of n elements takes 4n bytes
// more), so `execute` still allocates nothing of its own; when temp memory runs out the call
// fails with OutOfMemory, naming the tensor. Elementwise kernels do not go through
// here: they convert block by block on the stack (elementwise.h).

#include <span>

#include "etkit/runtime/evalue.h"
#include "etkit/runtime/kernel.h"

namespace etkit::kernels {

/// True if any tensor argument of `args` (the return slot included) is Half or BFloat16.
bool has_float16_tensor(std::span<EValue* const> args);

/// Runs `kernel` with every Half or BFloat16 tensor among `args` replaced by a float32 copy, then
/// resizes each such out (the tensors of the return slot) to its copy's sizes and rounds the copy
/// into it. Every floating tensor argument must have the same 16-bit dtype (PyTorch does not mix
/// them in these operators either); otherwise it fails (InvalidType) naming the pair. Tensors of
/// other dtypes (indices, masks) are passed as they are. Fails (NotSupported) for a Half or
/// BFloat16 tensor inside a tensor list argument. `dtype_arg`, if not negative, is the index of
/// the operator's `ScalarType? dtype` argument: a 16-bit dtype there becomes float32 too.
void run_through_float32(KernelContext& ctx, std::span<EValue*> args, KernelFn kernel,
                         int dtype_arg);

/// The registry entry of a float32 kernel that also takes Half and BFloat16: calls `Kernel`
/// directly unless a tensor argument is 16-bit. `DtypeArg` as in run_through_float32.
template <KernelFn Kernel, int DtypeArg = -1>
void via_float32(KernelContext& ctx, std::span<EValue*> args) {
  if (has_float16_tensor(args)) {
    run_through_float32(ctx, args, Kernel, DtypeArg);
  } else {
    Kernel(ctx, args);
  }
}

}  // namespace etkit::kernels
