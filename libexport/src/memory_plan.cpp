#include "etkit/export/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace etkit::exporter {

bool lifetimes_overlap(const PlanItem& a, const PlanItem& b) {
  return a.first <= b.last && b.first <= a.last;
}

MemoryPlan plan_greedy_by_size(std::span<const PlanItem> items, uint64_t alignment) {
  MemoryPlan plan;
  plan.offsets.assign(items.size(), 0);
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (items[a].size != items[b].size) return items[a].size > items[b].size;
    return items[a].first < items[b].first;
  });
  std::vector<size_t> placed;
  uint64_t end = 0;
  for (size_t i : order) {
    const PlanItem& item = items[i];
    if (item.size == 0) continue;
    // Memory ranges of placed tensors alive at the same time, by offset.
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (size_t p : placed) {
      if (lifetimes_overlap(item, items[p])) {
        busy.emplace_back(plan.offsets[p], plan.offsets[p] + items[p].size);
      }
    }
    std::sort(busy.begin(), busy.end());
    uint64_t offset = 0;
    for (const auto& [lo, hi] : busy) {
      if (offset + item.size <= lo) break;
      offset = std::max(offset, align_up(hi, alignment));
    }
    plan.offsets[i] = offset;
    end = std::max(end, offset + item.size);
    placed.push_back(i);
  }
  plan.total = align_up(end, alignment);
  return plan;
}

}  // namespace etkit::exporter
