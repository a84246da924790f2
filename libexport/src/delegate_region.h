#pragma once

// Private to libexport: finding a delegate region of a method (consecutive ops of one group)
// and lowering it through the `DelegateLowering` hook, checking what the lowering returns.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "etkit/export/exporter.h"
#include "etkit/export/model.h"
#include "etkit/runtime/result.h"

namespace etkit::exporter::detail {

// Calls `fn` with every tensor value index `op` reads (tensor and tensor-list arguments).
void for_each_tensor(const Op& op, const std::function<void(int32_t)>& fn);

// A delegate region of a method (its ops [begin, end)) and what the lowering made of it.
struct LoweredRegion {
  size_t begin = 0, end = 0;
  DelegateLowering::Region region;
  DelegateLowering::Lowered lowered;
};

// The delegate region that starts at op `k` of `m` (marked), lowered by `lowering`.
// `last_use[v]` is the time position of the last read of value v (an output's is past the last
// op): values the region defines and that are read after it are its outputs. Errors: the
// lowering's, with the region's first op path in front; `Internal` when the lowering embeds a
// value that is not a constant input of the region.
Result<LoweredRegion> lower_region_at(const Model& model, const Method& m, size_t k,
                                      const std::vector<int32_t>& last_use,
                                      const DelegateLowering& lowering);

}  // namespace etkit::exporter::detail
