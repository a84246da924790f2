#include "etkit/inspect/event_selection.h"

#include <re2/re2.h>

#include <algorithm>
#include <charconv>

namespace etkit::inspect {

Result<IterationRange> parse_iteration_range(std::string_view text) {
  auto bad = [&](const char* why) {
    return Error(ErrorCode::InvalidArgument, "bad --iterations '%.*s': %s",
                 static_cast<int>(text.size()), text.data(), why);
  };
  auto number = [](std::string_view t, uint64_t* v) {
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
    return ec == std::errc() && end == t.data() + t.size();
  };
  IterationRange r;
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    if (text.empty() || !number(text, &r.begin) || r.begin == UINT64_MAX) {
      return bad("expected N, A:B, A: or :B with non-negative integers");
    }
    r.end = r.begin + 1;
    return r;
  }
  const std::string_view a = text.substr(0, colon);
  const std::string_view b = text.substr(colon + 1);
  if ((!a.empty() && !number(a, &r.begin)) || (!b.empty() && !number(b, &r.end))) {
    return bad("expected N, A:B, A: or :B with non-negative integers");
  }
  if (r.end < r.begin) return bad("the end is before the start (ranges are half-open, [A, B))");
  return r;
}

bool block_in_selection(const TraceBlock& block, const EventSelection& selection) {
  if (!selection.method.empty() && block.method != selection.method) return false;
  if (block.load) return selection.include_load;
  if (selection.complete_only && block.incomplete) return false;
  if (block.warmup) return selection.include_warmup;
  return selection.iterations.contains(block.iteration);
}

bool block_selected(const Trace& trace, size_t b, const EventSelection& selection) {
  const TraceBlock& block = trace.blocks[b];
  if (selection.block >= 0) {
    return static_cast<size_t>(selection.block) == b &&
           (selection.method.empty() || block.method == selection.method);
  }
  return block_in_selection(block, selection);
}

void keep_selected_values(Trace& trace, const EventSelection& selection) {
  std::vector<bool> keep(trace.blocks.size());
  for (size_t b = 0; b < keep.size(); ++b) keep[b] = block_selected(trace, b, selection);
  std::erase_if(trace.values, [&](const TraceValue& v) { return !keep[v.block]; });
}

Result<EventSelector> EventSelector::make(const EventSelection& selection) {
  EventSelector out;
  out.selection_ = selection;
  if (!selection.name_regex.empty()) {
    RE2::Options options;
    options.set_log_errors(false);
    auto regex = std::make_shared<RE2>(selection.name_regex, options);
    if (!regex->ok()) {
      return Error(ErrorCode::InvalidArgument, "bad --name regex '%s': %s",
                   selection.name_regex.c_str(), regex->error().c_str());
    }
    out.regex_ = std::move(regex);
  }
  return out;
}

bool EventSelector::block_selected(const Trace& trace, size_t b) const {
  return inspect::block_selected(trace, b, selection_);
}

void EventSelector::select_block(const Trace& trace, size_t b, std::vector<size_t>& out) {
  if (!block_selected(trace, b)) return;
  const TraceBlock& block = trace.blocks[b];
  if (regex_ && cached_table_ != trace.strings) {
    matches_.clear();
    cached_table_ = trace.strings;
  }
  for (size_t i = block.first_event; i < block.first_event + block.num_events; ++i) {
    if (regex_) {
      const std::string_view name = trace.events[i].name;
      auto it = matches_.find({name.data(), name.size()});
      if (it == matches_.end()) {
        it = matches_.emplace(std::pair{name.data(), name.size()}, RE2::FullMatch(name, *regex_))
                 .first;
      }
      if (!it->second) continue;
    }
    out.push_back(i);
  }
}

Result<std::vector<size_t>> select_events(const Trace& trace, const EventSelection& selection) {
  ETKIT_ASSIGN_OR_RETURN(EventSelector selector, EventSelector::make(selection));
  std::vector<size_t> out;
  for (size_t b = 0; b < trace.blocks.size(); ++b) selector.select_block(trace, b, out);
  return out;
}

}  // namespace etkit::inspect
