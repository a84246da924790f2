#pragma once

// How the streamed writers (event table, Chrome trace, folded stacks) hold one block at a time.

#include <cstddef>
#include <vector>

#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/trace.h"
#include "etkit/inspect/trace_reader.h"

namespace etkit::inspect {

/// Whether a streamed writer reads the places of its blocks' logged values
/// (`TraceReader::rejoin_places`), or only the events.
enum class BlockValues { Places, Skipped };

/// Joins block `b` of `reader` into `trace` in place of the block joined before (with its
/// values' places with `BlockValues::Places`), and puts its selected events in `selected`.
inline void join_selected_block(TraceReader& reader, EventSelector& selector, Trace& trace,
                                size_t b, std::vector<size_t>& selected, BlockValues values) {
  if (values == BlockValues::Places) {
    reader.rejoin_places(b, trace);
  } else {
    reader.rejoin_events(b, trace);
  }
  selected.clear();
  selector.select_block(trace, b, selected);
}

/// Joins each block of `reader` that `selector` selects into `trace` (made by
/// `reader.skeleton()`), one at a time: the previous block's events and values are cleared
/// first, so indices are the block's own. Then calls `use(b)` with `selected` holding the
/// block's selected events.
template <typename Use>
void for_each_selected_block(TraceReader& reader, EventSelector& selector, Trace& trace,
                             std::vector<size_t>& selected, BlockValues values, Use&& use) {
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    if (!selector.block_selected(trace, b)) continue;
    join_selected_block(reader, selector, trace, b, selected, values);
    use(b);
  }
}

}  // namespace etkit::inspect
