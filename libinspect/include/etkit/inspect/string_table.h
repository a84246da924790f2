#pragma once

// Interned strings of a joined trace (trace.h): each distinct event name, operator, delegate id
// and metadata string is stored once, and events hold `std::string_view`s into the table.

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_set>

namespace etkit::inspect {

/// The strings of a trace (event names, operators, delegate ids), each stored once: the
/// `std::string_view`s of `TraceEvent` point into it. Shared by copies of a `Trace`, and never
/// shrinks, so a view stays valid as long as some copy of its trace lives.
class StringTable {
 public:
  /// The stored copy of `s` (added on first use).
  std::string_view intern(std::string_view s);
  /// Number of distinct strings.
  size_t size() const { return index_.size(); }

 private:
  std::deque<std::string> storage_;  // a deque: adding never moves the stored strings
  std::unordered_set<std::string_view> index_;
};

}  // namespace etkit::inspect
