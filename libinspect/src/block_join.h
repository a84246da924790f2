#pragma once

// Private to libinspect: the join of one run block's events into a trace (trace.h), shared by
// the join of the owning `ETDump` model (trace.cpp) and `TraceReader` (trace_reader.cpp), which
// join straight from the flatbuffer: start order, nesting, self time, operators from
// `native_call_` events, device events, and the block's logged values.

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "etkit/runtime/event_name.h"
#include "etkit/runtime/result.h"
#include "etkit/inspect/trace.h"

namespace etkit::inspect::detail {

inline constexpr std::string_view kDelegateOp = "delegate";
inline constexpr uint64_t kMax32 = std::numeric_limits<uint32_t>::max();

// Raw (start ticks, elapsed ticks) of an event, unwrapping a 32-bit counter.
Result<std::pair<uint64_t, uint64_t>> span_of(uint64_t start, uint64_t end);

// `span_of` of an event already checked by it (at open): no error to build per event.
inline std::pair<uint64_t, uint64_t> checked_span(uint64_t start, uint64_t end) {
  return end >= start ? std::pair{start, end - start} : std::pair{start, (kMax32 - start) + end};
}

// Sets the trace's tick rate from etkit's metadata.
Error set_tick_rate(const std::map<std::string, std::string>& metadata, Trace& trace);

// Applies etkit's metadata to a trace whose blocks are all added: keeps the pairs, reads the
// drop counts and the interrupted flag, flags warm-up and incomplete blocks and numbers the
// iterations (warm-up blocks apart). Errors: `InvalidData` naming the key and its value.
Error apply_metadata(const std::map<std::string, std::string>& metadata, Trace& trace);

// Appends a block named `name` to `trace` (method, load flag, iteration).
void add_block(const std::string& name, std::map<std::string, uint32_t>& executions,
               Trace& trace);

// The delegate debug id as text: the int when set, else the string (empty = none).
std::string_view delegate_text(int32_t id_int, std::string_view id_str, StringTable& strings);

// A profile event as the join takes it, from either source; strings already interned.
struct RawEvent {
  std::string_view name;
  std::string_view delegate_id;
  std::string_view metadata;
  uint64_t start = 0;
  uint64_t elapsed = 0;
  uint32_t index = 0;
  int32_t chain = -1;
  int32_t instruction_id = 0;
};

// The per-block join, with buffers kept between blocks.
class BlockJoiner {
 public:
  std::vector<RawEvent> raw;  // the block's profile events in file order, filled by the caller

  // Takes the operators of the block from the `native_call_` events of `raw` (for `op_of`).
  void name_operators();

  // Joins `raw` into events appended to `trace.events` (see the header comment of trace.h),
  // each written once, in its place; names the operators first.
  void join_events(Trace& trace, size_t b, uint64_t first_start, double ns_per_tick);

  // The operator of (chain, instruction) in the block last joined; empty when unknown.
  std::string_view op_of(int32_t chain, int32_t instruction) const {
    if (chain == 0 && instruction >= 0 && static_cast<size_t>(instruction) < ops0_.size()) {
      return ops0_[static_cast<size_t>(instruction)];
    }
    if (auto it = ops_.find({chain, instruction}); it != ops_.end()) return it->second;
    return {};
  }

 private:
  struct Order {
    uint64_t start;
    uint64_t end;
    uint32_t pos;
  };
  static bool before(const Order& x, const Order& y) {
    if (x.start != y.start) return x.start < y.start;
    if (x.end != y.end) return x.end > y.end;
    return x.pos > y.pos;
  }

  // Puts `order_` (in file order) in start order without sorting when the events are written
  // as tracers write them: each after the events it contains (in end order). Then file order is
  // a post-order of the nesting forest, and start order its pre-order: a subtree is built when
  // its root arrives, from the subtrees on the stack that it contains, as a linked list. The
  // result is checked against `before`; false (order_ unchanged) when it is not start order.
  bool nested_order();
  // Puts `order_` in start order by the permutation that sorted the block joined before, when
  // it has as many events and the result is in start order (`before` is a total order, so a
  // sequence increasing under it is the one sorted order): a method's blocks repeat their
  // events, and this costs a gather and the check instead of `nested_order`'s lists.
  bool previous_order();

  static constexpr int32_t kDirectOps = 1 << 16;  // chain-0 instructions kept in a vector

  // The first native_call_ of an instruction names it.
  void add_op(int32_t chain, int32_t instruction, std::string_view op) {
    if (chain == 0 && instruction < kDirectOps) {
      const auto i = static_cast<size_t>(instruction);
      if (i >= ops0_.size()) ops0_.resize(i + 1);
      if (ops0_[i].empty()) {
        ops0_[i] = op;
        touched_.push_back(i);
      }
      return;
    }
    ops_.emplace(std::pair{chain, instruction}, op);
  }
  void clear_ops() {
    for (size_t i : touched_) ops0_[i] = {};
    touched_.clear();
    ops_.clear();
  }

  std::vector<Order> order_;
  std::vector<Order> scratch_;
  std::vector<uint32_t> previous_;  // the last block's start order, as positions in file order
  std::vector<uint32_t> next_;      // nested_order(): successor in pre-order
  std::vector<uint32_t> tail_;      // nested_order(): last event of each subtree
  std::vector<uint32_t> subtrees_;  // nested_order(): roots of the finished subtrees
  std::vector<size_t> stack_;  // positions (in `order_`) of the open enclosing events
  std::vector<uint64_t> stack_end_;
  std::vector<std::string_view> ops0_;
  std::vector<size_t> touched_;
  std::map<std::pair<int32_t, int32_t>, std::string_view> ops_;
};

// Writes the value(s) of one debug event of block `b` at `trace.values[slot]` on and advances
// `slot`: values already there are overwritten in place, past the end they are appended. A block
// joined again over the one before (`TraceReader::rejoin_values`) so reuses the values' tensor
// vectors instead of allocating two per value; the caller drops what is left past `slot`.
// `delegate_id` and `name` are interned in `trace.strings`. With `Tensors::Kept` the values'
// `tensor` is not written (the caller converts into it); an empty list's value is given a
// default one all the same. With `Tensors::Default` every value's `tensor` is a default one
// (places only), set in place.
enum class Tensors { Copied, Kept, Default };
void put_value(Trace& trace, size_t& slot, size_t b, uint32_t& value_index, uint64_t chain_index,
               int32_t instruction_id, std::string_view delegate_id, std::string_view name,
               const LoggedValue& value, const BlockJoiner& joiner,
               Tensors tensors = Tensors::Copied);

}  // namespace etkit::inspect::detail
