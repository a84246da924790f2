#include "etkit/inspect/event_selection.h"

#include <re2/re2.h>

namespace etkit::inspect {

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
  const TraceBlock& block = trace.blocks[b];
  if (selection_.block >= 0 && static_cast<size_t>(selection_.block) != b) return false;
  if (!selection_.method.empty() && block.method != selection_.method) return false;
  if (!selection_.include_load && block.load) return false;
  return true;
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
