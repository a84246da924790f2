#pragma once

// Which events of a joined trace (trace.h) a subcommand looks at: by method, block, load flag
// and a name regex (RE2 full match), over a whole trace or block by block.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
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

/// Which events a subcommand looks at. Empty members select everything.
struct EventSelection {
  std::string method;      ///< Only blocks of this method.
  int64_t block = -1;      ///< Only this block (index into `Trace::blocks`), -1 = all.
  std::string name_regex;  ///< Only events whose name fully matches (RE2 syntax).
  bool include_load = true;  ///< Include load blocks.
};

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
