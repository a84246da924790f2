#pragma once

// Folded stacks (`etdump-inspect export --format folded`), the input of flame-graph tools
// (flamegraph.pl, speedscope, inferno): one line per distinct stack, `frame;frame;... COUNT`.
// The frames are the method (`METHOD:load` for a load block), then the enclosing events from
// the outermost in, each by its name, except an instruction's own event, written `OP@INDEX`
// (`addmm.out@0`, `delegate@2`) so that instructions stay apart. COUNT is the stack's self time
// in whole nanoseconds (the event's duration minus its direct children's, `TraceEvent::self_ns`),
// summed over the selected events with that stack and rounded once. Device events are left out:
// they overlap the host time of their instruction. A `;` in a name is written `:` and whitespace
// `_`, so that every line parses. Lines are sorted by stack, so the output is deterministic; a
// stack whose self time rounds to 0 is left out.

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/trace.h"
#include "etkit/inspect/trace_reader.h"

namespace etkit::inspect {

/// The folded stacks of the `selected` events of `trace` (see the file comment); every line ends
/// with a newline.
std::string folded_stacks(const Trace& trace, const std::vector<size_t>& selected);

/// The same for the events `selection` selects in the dump `reader` reads, joined one block at a
/// time (an event's enclosing events are in its block): only the distinct stacks and their sums
/// are kept, never the events. Errors: those of `EventSelector::make`.
Result<std::string> folded_stacks(TraceReader& reader, const EventSelection& selection);

/// Folded stacks gathered in parts (block by block): the sums are added in the order the events
/// come, so the text is the same however the trace is split.
class FoldedStacks {
 public:
  /// Adds the `selected` events of `trace` (their enclosing events must be in `trace`).
  void add(const Trace& trace, const std::vector<size_t>& selected);
  /// The folded stacks of every event added (see the file comment).
  std::string text() const;

 private:
  // A frame of the stack of the event added last: its event (SIZE_MAX for the method's frame),
  // the length of `stack_` up to it, and the sum of its stack once an event ended there.
  struct Frame {
    size_t event;
    size_t length;
    double* sum;
  };
  std::unordered_map<std::string, double> stacks_;  // sorted by text when written
  std::vector<size_t> chain_;
  std::string stack_;
  std::vector<Frame> path_;
  uint32_t block_ = 0;
};

}  // namespace etkit::inspect
