#include "etkit/inspect/folded_stacks.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <string_view>

#include "etkit/inspect/event_table.h"
#include "etkit/inspect/trace_reader.h"
#include "selected_blocks.h"

namespace etkit::inspect {

namespace {

void append_frame(std::string& out, std::string_view name) {
  const size_t at = out.size();
  out += name;
  for (size_t k = at; k < out.size(); ++k) {
    const char c = out[k];
    if (c == ';') {
      out[k] = ':';
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      out[k] = '_';
    }
  }
}

}  // namespace

void FoldedStacks::add(const Trace& trace, const std::vector<size_t>& selected) {
  // `stack_` holds the stack of the event added last, `path_` its frames (one per depth, with
  // the length of `stack_` up to it). Events come in start order, so a stack mostly shares its
  // frames with the previous one: only the frames below the deepest shared one are appended.
  std::vector<size_t>& chain = chain_;
  path_.clear();  // event indices are those of `trace`
  for (size_t i : selected) {
    const TraceEvent& e = trace.events[i];
    if (e.device) continue;
    if (e.block != block_ || path_.empty()) {
      const TraceBlock& b = trace.blocks[e.block];
      stack_.clear();
      append_frame(stack_, b.method);
      if (b.load) stack_ += ":load";
      path_.assign(1, Frame{SIZE_MAX, stack_.size(), nullptr});
      block_ = e.block;
    }
    chain.clear();
    int32_t p = static_cast<int32_t>(i);
    for (; p >= 0; p = trace.events[static_cast<size_t>(p)].parent) {
      const size_t depth = trace.events[static_cast<size_t>(p)].depth + 1;  // path_[0]: method
      if (depth < path_.size() && path_[depth].event == static_cast<size_t>(p)) break;
      chain.push_back(static_cast<size_t>(p));
    }
    const size_t keep = p < 0 ? 1 : trace.events[static_cast<size_t>(p)].depth + 2;
    path_.resize(keep);
    stack_.resize(path_.back().length);
    for (size_t k = chain.size(); k-- > 0;) {
      stack_ += ';';
      const TraceEvent& frame = trace.events[chain[k]];
      // An instruction is its operator and index: "OPERATOR_CALL" alone would merge them all.
      if (is_instruction_event(frame) && frame.instruction >= 0 && !frame.op.empty()) {
        append_frame(stack_, frame.op);
        char buf[16];
        const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, frame.instruction);
        stack_ += '@';
        stack_.append(buf, end);
      } else {
        append_frame(stack_, frame.name);
      }
      path_.push_back(Frame{chain[k], stack_.size(), nullptr});
    }
    Frame& top = path_.back();
    if (top.sum == nullptr) top.sum = &stacks_.try_emplace(stack_, 0.0).first->second;
    *top.sum += e.self_ns;
  }
}

std::string FoldedStacks::text() const {
  // In the order of the stacks' text, as a sorted map would hold them.
  std::vector<const std::pair<const std::string, double>*> sorted;
  sorted.reserve(stacks_.size());
  for (const auto& entry : stacks_) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto* x, const auto* y) { return x->first < y->first; });
  std::string out;
  for (const auto* entry : sorted) {
    const double rounded = std::round(entry->second);
    if (!(rounded >= 1)) continue;
    out += entry->first;
    out += ' ';
    out += std::to_string(static_cast<uint64_t>(rounded));
    out += '\n';
  }
  return out;
}

std::string folded_stacks(const Trace& trace, const std::vector<size_t>& selected) {
  FoldedStacks stacks;
  stacks.add(trace, selected);
  return stacks.text();
}

Result<std::string> folded_stacks(TraceReader& reader, const EventSelection& selection) {
  ETKIT_ASSIGN_OR_RETURN(EventSelector selector, EventSelector::make(selection));
  Trace trace = reader.skeleton();
  FoldedStacks stacks;
  std::vector<size_t> selected;
  // Parents are within a block, so a block's stacks need only its own events.
  for_each_selected_block(reader, selector, trace, selected, BlockValues::Skipped,
                          [&](size_t) { stacks.add(trace, selected); });
  return stacks.text();
}

}  // namespace etkit::inspect
