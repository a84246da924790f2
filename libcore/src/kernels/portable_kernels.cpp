#include "kernels/kernels.h"

namespace etkit {

namespace {

// Sorted by name (a unit test checks it): KernelRegistry::add does not require it, but callers
// of portable_kernels() may binary-search the table.
constexpr KernelEntry kPortableKernels[] = {
    {"aten::add.out", kernels::add_out},
    {"aten::addmm.out", kernels::addmm_out},
    {"aten::alias_copy.out", kernels::alias_copy_out},
    {"aten::expand_copy.out", kernels::expand_copy_out},
    {"aten::full_like.out", kernels::full_like_out},
    {"aten::mm.out", kernels::mm_out},
    {"aten::mul.Scalar_out", kernels::mul_scalar_out},
    {"aten::mul.out", kernels::mul_out},
    {"aten::neg.out", kernels::neg_out},
    {"aten::permute_copy.out", kernels::permute_copy_out},
    {"aten::pow.Tensor_Scalar_out", kernels::pow_tensor_scalar_out},
    {"aten::sub.out", kernels::sub_out},
    {"aten::sum.IntList_out", kernels::sum_intlist_out},
    {"aten::tanh.out", kernels::tanh_out},
    {"aten::view_copy.out", kernels::view_copy_out},
    {"dim_order_ops::_clone_dim_order.out", kernels::clone_dim_order_out},
    {"dim_order_ops::_to_dim_order_copy.out", kernels::to_dim_order_copy_out},
};

}  // namespace

std::span<const KernelEntry> portable_kernels() { return kPortableKernels; }

}  // namespace etkit
