#pragma once

// Memory planning: placing tensors whose lifetimes do not overlap at the same offsets.
//
// A lifetime is the inclusive range of operation indices [first, last] during which a tensor
// must keep its bytes: from the operation that writes it (-1 for a method input, written before
// the first operation) to the last operation that reads it (the number of operations for a
// method output, which must survive the call). An operation's output never shares memory with
// its own inputs, because both lifetimes contain that operation's index.

#include <cstdint>
#include <span>
#include <vector>

namespace etkit::exporter {

/// One tensor to place.
struct PlanItem {
  uint64_t size = 0;  ///< Bytes; 0 takes no memory (placed at offset 0).
  int32_t first = 0;  ///< First operation index of the lifetime (-1: before the first op).
  int32_t last = 0;   ///< Last operation index of the lifetime (inclusive).
};

/// True if the lifetimes of `a` and `b` share an operation index.
bool lifetimes_overlap(const PlanItem& a, const PlanItem& b);

/// Offsets for `items` (same order) and the buffer size they need.
struct MemoryPlan {
  std::vector<uint64_t> offsets;
  uint64_t total = 0;  ///< Aligned up to the alignment.
};

/// Greedy by size: tensors are placed largest first (ties: earlier lifetime, then input order),
/// each at the lowest `alignment`-aligned offset where it overlaps in memory no already placed
/// tensor whose lifetime overlaps its own. Deterministic. `alignment` must be a power of two.
MemoryPlan plan_greedy_by_size(std::span<const PlanItem> items, uint64_t alignment = 16);

/// `value` rounded up to a multiple of `alignment` (a power of two).
inline uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

}  // namespace etkit::exporter
