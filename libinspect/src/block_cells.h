#pragma once

// The cells that open every row of a block's events and values (`show`, `values`): block,
// method, kind, iteration (empty for a load block). Written once, for both tables.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "etkit/inspect/table.h"
#include "etkit/inspect/trace.h"

namespace etkit::inspect {

/// How many cells `put_block_cells` writes.
inline constexpr size_t kBlockCells = 4;

/// Writes the cells of block `b` of `trace` at `out` (room for `kBlockCells`), as views of the
/// block; returns the position after them.
inline CellRef* put_block_cells(const Trace& trace, uint32_t b, CellRef* out) {
  const TraceBlock& block = trace.blocks[b];
  *out++ = CellRef::integer(b);
  *out++ = CellRef::string(block.method);
  *out++ = CellRef::string(block_kind(block));
  *out++ = block.load ? CellRef::empty() : CellRef::integer(block.iteration);
  return out;
}

/// The same appended to `row` as owning cells.
inline void append_block_cells(const Trace& trace, uint32_t b, std::vector<Cell>& row) {
  CellRef cells[kBlockCells];
  put_block_cells(trace, b, cells);
  for (const CellRef& c : cells) row.push_back(c.to_cell());
}

}  // namespace etkit::inspect
