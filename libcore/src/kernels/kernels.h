#pragma once

// Declarations of the portable kernel functions, for the registry table in portable_kernels.cpp.
// Each follows the calling convention in etkit/core/kernel.h: one value per schema argument in
// schema order, plus the return slot.

#include <span>

#include "etkit/core/kernel.h"

namespace etkit::kernels {

// binary_ops.cpp
void add_out(KernelContext& ctx, std::span<EValue*> args);
void sub_out(KernelContext& ctx, std::span<EValue*> args);
void mul_out(KernelContext& ctx, std::span<EValue*> args);
void mul_scalar_out(KernelContext& ctx, std::span<EValue*> args);
void pow_tensor_scalar_out(KernelContext& ctx, std::span<EValue*> args);
// unary_ops.cpp
void neg_out(KernelContext& ctx, std::span<EValue*> args);
void tanh_out(KernelContext& ctx, std::span<EValue*> args);
// matmul.cpp
void mm_out(KernelContext& ctx, std::span<EValue*> args);
void addmm_out(KernelContext& ctx, std::span<EValue*> args);
// shape_ops.cpp
void permute_copy_out(KernelContext& ctx, std::span<EValue*> args);
void expand_copy_out(KernelContext& ctx, std::span<EValue*> args);
void view_copy_out(KernelContext& ctx, std::span<EValue*> args);
void alias_copy_out(KernelContext& ctx, std::span<EValue*> args);
// copy_ops.cpp
void full_like_out(KernelContext& ctx, std::span<EValue*> args);
void to_dim_order_copy_out(KernelContext& ctx, std::span<EValue*> args);
void clone_dim_order_out(KernelContext& ctx, std::span<EValue*> args);
// reduce_ops.cpp
void sum_intlist_out(KernelContext& ctx, std::span<EValue*> args);

}  // namespace etkit::kernels
