#pragma once

// Which events of a joined trace (trace.h) a subcommand looks at: by method, block, load flag,
// iterations (warm-up left out unless asked for, a range of measured iterations, incomplete
// blocks left out of statistics) and a name regex (RE2 full match), over a whole trace or block
// by block. Every subcommand selects through here, so the rules are the same everywhere.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/inspect/string_table.h"
#include "etkit/inspect/trace.h"

namespace re2 {
class RE2;
}

namespace etkit::inspect {

/// Measured iterations `[begin, end)` (`TraceBlock::iteration` of non-warm-up executions).
struct IterationRange {
  uint64_t begin = 0;
  uint64_t end = UINT64_MAX;
  bool contains(uint64_t i) const { return i >= begin && i < end; }
  bool all() const { return begin == 0 && end == UINT64_MAX; }
};

/// Parses a Python-like half-open range of iterations: `A:B`, `A:` (from A on), `:B` (before
/// B), `:` (all), or `N` (iteration N alone); A and B non-negative integers, A <= B. Errors:
/// `InvalidArgument` ("bad --iterations '5:2': ...").
Result<IterationRange> parse_iteration_range(std::string_view text);

/// Which events a subcommand looks at. Empty members select everything but warm-up.
struct EventSelection {
  std::string method;      ///< Only blocks of this method.
  /// Only this block (index into `Trace::blocks`), -1 = all. A block asked for by index is
  /// selected whatever its kind, iteration or completeness (its method must still match).
  int64_t block = -1;
  std::string name_regex;  ///< Only events whose name fully matches (RE2 syntax).
  bool include_load = true;  ///< Include load blocks.
  /// Include warm-up executions (all of them: `iterations` numbers measured ones).
  bool include_warmup = false;
  IterationRange iterations;   ///< Only these measured iterations.
  bool complete_only = false;  ///< Leave out blocks that may miss events (statistics).
};

/// Whether `block` (its method, kind, iteration, completeness; not its index) is selected: the
/// one rule every subcommand applies.
bool block_in_selection(const TraceBlock& block, const EventSelection& selection);

/// Whether block `b` of `trace` is selected: `selection.block` when given (and the method),
/// else `block_in_selection`.
bool block_selected(const Trace& trace, size_t b, const EventSelection& selection);

/// Removes from `trace.values` the values of blocks that `block_selected` leaves out, for
/// subcommands that work on values.
void keep_selected_values(Trace& trace, const EventSelection& selection);

/// Indices into `trace.events` of the selected events, in `trace.events` order. Errors:
/// `InvalidArgument` for a regex that does not compile ("bad --name regex '(': ...").
Result<std::vector<size_t>> select_events(const Trace& trace, const EventSelection& selection);

/// An `EventSelection` compiled once, to select block by block (its regex is matched once per
/// distinct name of a trace).
class EventSelector {
 public:
  /// Errors: those of `select_events`.
  static Result<EventSelector> make(const EventSelection& selection);
  /// Whether block `b` of `trace` is selected at all (method, block, load flag).
  bool block_selected(const Trace& trace, size_t b) const;
  /// Appends the indices of the selected events of block `b` to `out`.
  void select_block(const Trace& trace, size_t b, std::vector<size_t>& out);
  /// Whether some events of a selected block may be left out (a name filter); if not, a
  /// selected block's events are all selected.
  bool filters_events() const { return regex_ != nullptr; }

 private:
  EventSelection selection_;
  std::shared_ptr<const re2::RE2> regex_;
  // Match results by name (address and length), for the string table they belong to (held, so
  // that its addresses are not reused while cached).
  struct NameHash {
    size_t operator()(const std::pair<const char*, size_t>& k) const {
      return std::hash<const char*>()(k.first) ^ (k.second * 0x9e3779b97f4a7c15ULL);
    }
  };
  std::shared_ptr<StringTable> cached_table_;
  std::unordered_map<std::pair<const char*, size_t>, bool, NameHash> matches_;
};

}  // namespace etkit::inspect
