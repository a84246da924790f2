#include "etkit/kernels/portable_kernels.h"

#include <algorithm>
#include <vector>

#include "kernels.h"

namespace etkit {

std::span<const KernelEntry> portable_kernels() {
  // Built once, at first use (host code): the families' tables merged and sorted by name. A unit
  // test checks that names are unique.
  static const std::vector<KernelEntry> table = [] {
    using Family = std::span<const KernelEntry> (*)();
    const Family families[] = {
        kernels::binary_kernels,     kernels::unary_kernels,    kernels::matmul_kernels,
        kernels::shape_kernels,      kernels::copy_kernels,     kernels::reduce_kernels,
        kernels::activation_kernels, kernels::comparison_kernels, kernels::where_kernels,
        kernels::quantize_kernels,   kernels::conv_kernels,     kernels::pool_kernels,
        kernels::norm_kernels,       kernels::softmax_kernels,  kernels::index_kernels,
        kernels::creation_kernels,   kernels::pad_kernels,      kernels::unary_math_kernels,
        kernels::rounding_kernels,   kernels::bitwise_kernels,  kernels::binary_math_kernels,
        kernels::view_copy_kernels,  kernels::split_kernels,
        kernels::minmax_kernels,     kernels::any_kernels,      kernels::variance_kernels,
        kernels::clamp_kernels,
        kernels::gather_kernels,
        kernels::topk_kernels,
        kernels::parametric_activation_kernels,
        kernels::rearrange_kernels,
        kernels::masked_kernels,
        kernels::scan_kernels,
        kernels::upsample_kernels,
        kernels::group_norm_kernels,
        kernels::batch_norm_training_kernels,
        kernels::distance_kernels,
        kernels::random_kernels,
        kernels::pool_backward_kernels,
        kernels::grid_sampler_kernels,
        kernels::cortex_m_kernels,
        kernels::embedding_quant_kernels,
        kernels::cortex_m_conv_kernels,
    };
    std::vector<KernelEntry> all;
    for (Family f : families) {
      const std::span<const KernelEntry> entries = f();
      all.insert(all.end(), entries.begin(), entries.end());
    }
    std::sort(all.begin(), all.end(),
              [](const KernelEntry& a, const KernelEntry& b) { return a.name < b.name; });
    return all;
  }();
  return table;
}

Error register_portable_kernels(KernelRegistry& registry) {
  return registry.add(portable_kernels());
}

}  // namespace etkit
