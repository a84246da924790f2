#pragma once

// Declarations of the portable kernel families and of the kernels other files call.
// Each follows the calling convention in etkit/runtime/kernel.h: one value per schema argument in
// schema order, plus the return slot.

#include <span>

#include "etkit/runtime/kernel.h"

namespace etkit::kernels {

// Each operator family registers its kernels through one table function, defined at the end of
// its file: portable_kernels() (etkit/kernels/portable_kernels.h) merges them. A family's kernels may stay file-local.
std::span<const KernelEntry> binary_kernels();      // binary_ops.cpp
std::span<const KernelEntry> unary_kernels();       // unary_ops.cpp
std::span<const KernelEntry> matmul_kernels();      // matmul.cpp
std::span<const KernelEntry> shape_kernels();       // shape_ops.cpp
std::span<const KernelEntry> copy_kernels();        // copy_ops.cpp
std::span<const KernelEntry> reduce_kernels();      // reduce_ops.cpp
std::span<const KernelEntry> activation_kernels();  // activation_ops.cpp
std::span<const KernelEntry> comparison_kernels();  // comparison_ops.cpp
std::span<const KernelEntry> where_kernels();       // where_ops.cpp
std::span<const KernelEntry> quantize_kernels();    // quantize_ops.cpp
std::span<const KernelEntry> conv_kernels();        // conv_ops.cpp
std::span<const KernelEntry> pool_kernels();        // pool_ops.cpp
std::span<const KernelEntry> norm_kernels();        // norm_ops.cpp
std::span<const KernelEntry> softmax_kernels();     // softmax_ops.cpp
std::span<const KernelEntry> index_kernels();       // index_ops.cpp
std::span<const KernelEntry> creation_kernels();    // creation_ops.cpp
std::span<const KernelEntry> pad_kernels();         // pad_ops.cpp
std::span<const KernelEntry> unary_math_kernels();  // unary_math_ops.cpp
std::span<const KernelEntry> rounding_kernels();    // rounding_ops.cpp
std::span<const KernelEntry> bitwise_kernels();     // bitwise_ops.cpp
std::span<const KernelEntry> binary_math_kernels(); // binary_math_ops.cpp
std::span<const KernelEntry> view_copy_kernels();   // view_copy_ops.cpp
std::span<const KernelEntry> split_kernels();       // split_ops.cpp
std::span<const KernelEntry> minmax_kernels();      // minmax_ops.cpp
std::span<const KernelEntry> any_kernels();         // any_ops.cpp
std::span<const KernelEntry> variance_kernels();    // variance_ops.cpp

std::span<const KernelEntry> clamp_kernels();  // clamp_ops.cpp
std::span<const KernelEntry> gather_kernels();  // gather_ops.cpp
std::span<const KernelEntry> topk_kernels();  // topk_ops.cpp
std::span<const KernelEntry> parametric_activation_kernels();  // parametric_activation_ops.cpp
std::span<const KernelEntry> rearrange_kernels();  // rearrange_ops.cpp
std::span<const KernelEntry> masked_kernels();  // masked_ops.cpp
std::span<const KernelEntry> scan_kernels();  // scan_ops.cpp
std::span<const KernelEntry> upsample_kernels();  // upsample_ops.cpp
std::span<const KernelEntry> group_norm_kernels();  // group_norm_ops.cpp
std::span<const KernelEntry> batch_norm_training_kernels();  // batch_norm_training_ops.cpp
std::span<const KernelEntry> distance_kernels();  // distance_ops.cpp
std::span<const KernelEntry> random_kernels();  // random_ops.cpp
std::span<const KernelEntry> pool_backward_kernels();  // pool_backward_ops.cpp
std::span<const KernelEntry> grid_sampler_kernels();  // grid_sampler_ops.cpp
std::span<const KernelEntry> cortex_m_kernels();  // cortex_m_ops.cpp
std::span<const KernelEntry> embedding_quant_kernels();  // embedding_quant_ops.cpp
std::span<const KernelEntry> cortex_m_conv_kernels();  // cortex_m_conv_ops.cpp
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
// quantize_ops.cpp: quantized_decomposed::quantize_per_tensor.out and dequantize_per_tensor.out
void quantize_per_tensor_scalar_out(KernelContext& ctx, std::span<EValue*> args);
void dequantize_per_tensor_scalar_out(KernelContext& ctx, std::span<EValue*> args);

}  // namespace etkit::kernels
