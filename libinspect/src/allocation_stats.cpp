#include "etkit/inspect/allocation_stats.h"

#include <cinttypes>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include "etkit/runtime/block_name.h"

namespace etkit::inspect {
namespace {

uint64_t saturating_add(uint64_t a, uint64_t b) {
  return b > std::numeric_limits<uint64_t>::max() - a ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

int64_t cell_int(uint64_t v) {
  return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(v);
}

}  // namespace

Result<std::vector<AllocatorStats>> allocation_stats(const ETDump& dump) {
  std::vector<AllocatorStats> stats;
  std::map<std::tuple<std::string, bool, std::string>, size_t> index;
  for (size_t b = 0; b < dump.blocks.size(); ++b) {
    const RunBlock& block = dump.blocks[b];
    const BlockName name = parse_block_name(block.name);
    const std::string method(name.method);
    // Bytes per allocator in this block; then folded into the row of its name.
    std::vector<uint64_t> in_block(block.allocators.size(), 0);
    std::vector<bool> used(block.allocators.size(), false);
    for (size_t e = 0; e < block.events.size(); ++e) {
      const Event& event = block.events[e];
      if (event.kind != Event::Kind::Allocation) continue;
      const int32_t id = event.allocation.allocator_id;
      if (id < 1 || static_cast<size_t>(id) > block.allocators.size()) {
        return Error(ErrorCode::InvalidData,
                     "block %zu, event %zu: allocator id %d is not one of the block's %zu "
                     "allocators",
                     b, e, id, block.allocators.size());
      }
      const size_t a = static_cast<size_t>(id - 1);
      auto [it, added] = index.emplace(std::make_tuple(method, name.load, block.allocators[a]),
                                       stats.size());
      if (added) stats.push_back({method, name.load, block.allocators[a], 0, 0, 0, 0, 0});
      AllocatorStats& s = stats[it->second];
      const uint64_t size = event.allocation.allocation_size;
      s.count = saturating_add(s.count, 1);
      s.bytes = saturating_add(s.bytes, size);
      if (size > s.largest) s.largest = size;
      in_block[a] = saturating_add(in_block[a], size);
      used[a] = true;
    }
    for (size_t a = 0; a < block.allocators.size(); ++a) {
      if (!used[a]) continue;
      AllocatorStats& s = stats[index.at(std::make_tuple(method, name.load, block.allocators[a]))];
      s.blocks += 1;
      if (in_block[a] > s.peak) s.peak = in_block[a];
    }
  }
  return stats;
}

Table allocation_table(const std::vector<AllocatorStats>& stats, std::string title) {
  Table t;
  t.name = "memory";
  t.title = std::move(title);
  for (const char* c :
       {"method", "kind", "allocator", "blocks", "count", "bytes", "peak", "largest"}) {
    t.columns.push_back({c, 0, false});
  }
  for (const AllocatorStats& s : stats) {
    t.rows.push_back({s.method, std::string(s.load ? "load" : "execute"), s.allocator,
                      cell_int(s.blocks), cell_int(s.count),
                      cell_int(s.bytes), cell_int(s.peak), cell_int(s.largest)});
  }
  return t;
}

}  // namespace etkit::inspect
