#include "etkit/export/memory_plan.h"

#include <doctest/doctest.h>

#include <vector>

namespace etkit::exporter {
namespace {

bool ranges_overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) {
  return a < b + bn && b < a + an;
}

TEST_CASE("memory plan: lifetimes overlap when they share an operation index") {
  CHECK(lifetimes_overlap({16, 0, 2}, {16, 2, 3}));   // read by op 2, written by op 2
  CHECK(lifetimes_overlap({16, -1, 0}, {16, 0, 1}));  // an input and the first op's output
  CHECK(lifetimes_overlap({16, 0, 5}, {16, 2, 3}));   // nested
  CHECK_FALSE(lifetimes_overlap({16, 0, 1}, {16, 2, 3}));
  CHECK_FALSE(lifetimes_overlap({16, -1, -1}, {16, 0, 0}));  // an unused input
}

TEST_CASE("memory plan: tensors with disjoint lifetimes share memory") {
  // A chain a -> b -> c -> d: a and c, b and d never live together.
  std::vector<PlanItem> items{{64, -1, 0}, {64, 0, 1}, {64, 1, 2}, {64, 2, 3}};
  MemoryPlan plan = plan_greedy_by_size(items);
  CHECK(plan.total == 128);
  CHECK(plan.offsets[0] == plan.offsets[2]);
  CHECK(plan.offsets[1] == plan.offsets[3]);
  CHECK(plan.offsets[0] != plan.offsets[1]);
}

TEST_CASE("memory plan: tensors alive together never overlap in memory") {
  std::vector<PlanItem> items{{100, -1, 4}, {40, 0, 2}, {24, 1, 3}, {300, 3, 5}, {8, 2, 2},
                              {64, 4, 6}, {1, 5, 6}, {200, -1, 1}};
  MemoryPlan plan = plan_greedy_by_size(items);
  uint64_t end = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    CHECK(plan.offsets[i] % 16 == 0);
    end = std::max(end, plan.offsets[i] + items[i].size);
    for (size_t j = i + 1; j < items.size(); ++j) {
      if (!lifetimes_overlap(items[i], items[j])) continue;
      CAPTURE(i);
      CAPTURE(j);
      CHECK_FALSE(ranges_overlap(plan.offsets[i], items[i].size, plan.offsets[j], items[j].size));
    }
  }
  CHECK(plan.total == align_up(end, 16));
  uint64_t sum = 0;
  for (const PlanItem& it : items) sum += it.size;
  CHECK(plan.total < sum);
}

TEST_CASE("memory plan: largest first, each at the lowest aligned offset that fits") {
  // b (largest) goes first at 0; a fits after it (aligned to 16); c reuses a's lifetime gap.
  std::vector<PlanItem> items{{20, 0, 1}, {40, 0, 1}, {20, 2, 3}};
  MemoryPlan plan = plan_greedy_by_size(items);
  CHECK(plan.offsets[1] == 0);
  CHECK(plan.offsets[0] == 48);
  CHECK(plan.offsets[2] == 0);
  CHECK(plan.total == 80);
}

TEST_CASE("memory plan: a gap between live tensors is reused when large enough") {
  // x at 0 (64 bytes, ops 0-9), y at 64 (32, ops 0-1), z at 96 (64, ops 0-9); w (32, ops 5-6)
  // fits y's place once y is dead.
  std::vector<PlanItem> items{{64, 0, 9}, {32, 0, 1}, {64, 0, 9}, {32, 5, 6}};
  MemoryPlan plan = plan_greedy_by_size(items);
  CHECK(plan.offsets[0] == 0);
  CHECK(plan.offsets[2] == 64);
  CHECK(plan.offsets[1] == 128);
  CHECK(plan.offsets[3] == 128);
  CHECK(plan.total == 160);
}

TEST_CASE("memory plan: empty tensors take no memory; the total is aligned") {
  MemoryPlan none = plan_greedy_by_size(std::vector<PlanItem>{});
  CHECK(none.total == 0);
  std::vector<PlanItem> items{{0, 0, 3}, {4, 0, 3}};
  MemoryPlan plan = plan_greedy_by_size(items);
  CHECK(plan.offsets[0] == 0);
  CHECK(plan.offsets[1] == 0);
  CHECK(plan.total == 16);
  CHECK(plan_greedy_by_size(items, 64).total == 64);
}

}  // namespace
}  // namespace etkit::exporter
