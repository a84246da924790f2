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
        kernels::creation_kernels,   kernels::pad_kernels,
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
