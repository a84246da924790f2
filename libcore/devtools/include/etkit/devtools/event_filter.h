#pragma once

// `EventFilter`: the regex and index-range filter for intermediate outputs (design note 000's
// ETDumpFilter, extended with keep and drop rules and to non-delegate outputs).
//
// An output has a name and/or an index:
//   - a kernel's output: the operator name ("aten::add.out") and the instruction index;
//   - a delegate call's values: the backend name ("XnnpackBackend") and the instruction index;
//   - a backend's own intermediate output: its string id (name) or its integer id (index).
// Rules:
//   - keep-name REGEX / drop-name REGEX match names with RE2 full-match semantics, either the
//     whole name or, for a qualified one, the part after its namespace: `addmm.out` (as
//     etdump-inspect's tables print operators) and `aten::addmm.out` both match
//     "aten::addmm.out" (`name_pattern_matches`);
//   - keep-range [A, B) / drop-range [A, B) match indices, half-open;
//   - an output is logged when (there are no keep rules, or at least one keep rule matches it)
//     and no drop rule matches it. A name rule never matches an output without a name, a range
//     rule never one without an index.
// With no rules everything is logged. Patterns are compiled once, when added; decisions are
// cached per name, so a name seen before costs a table lookup.

#include <cstdint>
#include <memory>
#include <string_view>

#include "etkit/runtime/event_tracer.h"

namespace etkit {

class EventFilter final : public EventTracerFilterBase {
 public:
  EventFilter();
  ~EventFilter() override;
  EventFilter(const EventFilter&) = delete;
  EventFilter& operator=(const EventFilter&) = delete;

  /// Adds a keep or drop pattern. Errors: `InvalidArgument` with RE2's reason for a bad pattern.
  Error add_name_pattern(std::string_view pattern, bool keep);
  /// Adds a keep or drop range [start, end). Errors: `InvalidArgument` if start >= end or
  /// start < 0.
  Error add_range(int64_t start, int64_t end, bool keep);
  /// True when there are no rules.
  bool empty() const;

  Result<bool> filter(std::string_view name, int64_t index) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Whether a name rule `pattern` matches `name` (see the file comment: the whole name, or the
/// part after the first `::`). Host-side check of patterns against a program's names; it
/// compiles the pattern on every call. Errors: `InvalidArgument` for a bad pattern.
Result<bool> name_pattern_matches(std::string_view pattern, std::string_view name);

/// Parses "A:B" (half-open, A < B, both >= 0). Errors: `InvalidArgument`.
Result<std::pair<int64_t, int64_t>> parse_range(std::string_view text);

}  // namespace etkit
