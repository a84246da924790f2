#include "etkit/inspect/folded_stacks.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <string_view>

#include "etkit/inspect/event_table.h"
#include "etkit/inspect/trace_reader.h"

namespace etkit::inspect {

namespace {

void append_frame(std::string& out, std::string_view name) {
  for (char c : name) {
    if (c == ';') {
      out += ':';
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      out += '_';
    } else {
      out += c;
    }
  }
}

}  // namespace

void FoldedStacks::add(const Trace& trace, const std::vector<size_t>& selected) {
  std::vector<size_t>& chain = chain_;
  for (size_t i : selected) {
    const TraceEvent& e = trace.events[i];
    if (e.device) continue;
    chain.clear();
    for (int32_t p = static_cast<int32_t>(i); p >= 0;
         p = trace.events[static_cast<size_t>(p)].parent) {
      chain.push_back(static_cast<size_t>(p));
    }
    const TraceBlock& b = trace.blocks[e.block];
    std::string& stack = stack_;
    stack.clear();
    append_frame(stack, b.method);
    if (b.load) stack += ":load";
    for (size_t k = chain.size(); k-- > 0;) {
      stack += ';';
      const TraceEvent& frame = trace.events[chain[k]];
      // An instruction is its operator and index: "OPERATOR_CALL" alone would merge them all.
      if (is_instruction_event(frame) && frame.instruction >= 0 && !frame.op.empty()) {
        append_frame(stack, frame.op);
        stack += '@' + std::to_string(frame.instruction);
      } else {
        append_frame(stack, frame.name);
      }
    }
    auto it = stacks_.find(stack);
    if (it == stacks_.end()) it = stacks_.emplace(stack, 0.0).first;
    it->second += e.self_ns;
  }
}

std::string FoldedStacks::text() const {
  std::string out;
  for (const auto& [stack, self_ns] : stacks_) {
    const double rounded = std::round(self_ns);
    if (!(rounded >= 1)) continue;
    out += stack;
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
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    if (!selector.block_selected(trace, b)) continue;
    // Parents are within a block, so a block's stacks need only its own events.
    trace.events.clear();
    trace.values.clear();
    reader.join_block(b, trace);
    selected.clear();
    selector.select_block(trace, b, selected);
    stacks.add(trace, selected);
  }
  return stacks.text();
}

}  // namespace etkit::inspect
