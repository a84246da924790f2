#pragma once

// What the allocation events of a dump say (`etdump-inspect memory`): per method, kind of block
// (its load block or its executions; block_name.h) and allocator, how many allocations,
// how many bytes, and the most bytes in one block. etkit's runtime names its allocators
// "planned_memory" (the plan's buffers, recorded at load), "method_allocator" (what load and
// delegate init took) and "temp_allocator" (kernel scratch, per execution), so the load rows
// put planned memory beside the memory used. ExecuTorch's writer records allocation events as
// the same schema fields (RunData.allocators, Event.allocation_event); its Python Inspector
// cannot read them, this can.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "etkit/inspect/etdump.h"
#include "etkit/inspect/table.h"
#include "etkit/runtime/result.h"

namespace etkit::inspect {

/// The allocations of one allocator in the blocks of one method and kind.
struct AllocatorStats {
  std::string method;     ///< The blocks' method (block_name.h `parse_block_name`).
  bool load = false;      ///< Load blocks; else executions.
  std::string allocator;  ///< The allocator's name in those blocks.
  uint64_t blocks = 0;    ///< Blocks of that name in which it allocated.
  uint64_t count = 0;     ///< Allocation events.
  uint64_t bytes = 0;     ///< Their bytes, all blocks together.
  uint64_t peak = 0;      ///< The most bytes allocated in one block.
  uint64_t largest = 0;   ///< The largest single allocation.
};

/// Groups the allocation events of `dump` by method, kind and allocator name, in order of first
/// appearance. Errors (`InvalidData`, naming the block index and event): an allocator id
/// outside the block's allocator list (ids are 1-based). Sums saturate at 2^64-1.
Result<std::vector<AllocatorStats>> allocation_stats(const ETDump& dump);

/// `allocation_stats(read_etdump(bytes))` in one pass over the verified flatbuffer, without the
/// owning model: every event is checked as `read_etdump` checks it, with its errors (which come
/// before an allocator id's, as there), and only allocation events are read. What `memory`
/// uses: on a dump of a million profile events the model took 9 times the dump's bytes.
Result<std::vector<AllocatorStats>> read_allocation_stats(std::span<const uint8_t> bytes);

/// The same for the dump at `path`, mapped; every message starts with "PATH: ", as
/// `read_etdump_file`'s do.
Result<std::vector<AllocatorStats>> read_allocation_stats_file(const std::string& path);

/// The `memory` table: columns method, kind (load or execute), allocator, blocks, count, bytes,
/// peak, largest.
Table allocation_table(const std::vector<AllocatorStats>& stats, std::string title);

}  // namespace etkit::inspect
