#pragma once

// The cells that open every row of a block's events and values (`show`, `values`): block,
// method, kind, iteration (empty for a load block). Written once, for both tables.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "etkit/inspect/table.h"
#include "etkit/inspect/trace.h"

namespace etkit::inspect {

/// Appends the cells of block `b` of `trace` to `row`.
inline void append_block_cells(const Trace& trace, uint32_t b, std::vector<Cell>& row) {
  const TraceBlock& block = trace.blocks[b];
  row.emplace_back(static_cast<int64_t>(b));
  row.emplace_back(block.method);
  row.emplace_back(std::string(block_kind(block)));
  if (block.load) {
    row.emplace_back(std::monostate{});
  } else {
    row.emplace_back(static_cast<int64_t>(block.iteration));
  }
}

}  // namespace etkit::inspect
