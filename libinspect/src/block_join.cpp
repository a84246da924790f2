#include "block_join.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <tuple>

#include "etkit/devtools/etdump_metadata.h"
#include "etkit/devtools/profiler_event_name.h"
#include "etkit/runtime/block_name.h"

namespace etkit::inspect::detail {

Result<std::pair<uint64_t, uint64_t>> span_of(uint64_t start, uint64_t end) {
  if (end >= start) return std::pair{start, end - start};
  if (start <= kMax32 && end <= kMax32) return std::pair{start, (kMax32 - start) + end};
  return Error(ErrorCode::InvalidData, "end time %llu is before start time %llu",
               static_cast<unsigned long long>(end), static_cast<unsigned long long>(start));
}

Error set_tick_rate(const std::map<std::string, std::string>& metadata, Trace& trace) {
  auto it = metadata.find(std::string(metadata_key::kTicksPerSecond));
  if (it == metadata.end()) return Error();
  uint64_t tps = 0;
  const std::string& text = it->second;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), tps);
  if (ec != std::errc() || end != text.data() + text.size() || tps == 0) {
    return Error(ErrorCode::InvalidData,
                 "%s: metadata ticks_per_second '%s' is not a positive integer",
                 trace.path.c_str(), text.c_str());
  }
  trace.ticks_per_second = static_cast<double>(tps);
  trace.ticks_recorded = true;
  return Error();
}

Error apply_metadata(const std::map<std::string, std::string>& metadata, Trace& trace) {
  trace.metadata = metadata;
  auto bad = [&](std::string_view key, const std::string& value, const char* expected) {
    return Error(ErrorCode::InvalidData, "%s: metadata %.*s '%s' is not %s", trace.path.c_str(),
                 static_cast<int>(key.size()), key.data(), value.c_str(), expected);
  };
  auto find = [&](std::string_view key) -> const std::string* {
    auto it = metadata.find(std::string(key));
    return it == metadata.end() ? nullptr : &it->second;
  };
  auto count = [&](std::string_view key, uint64_t* out) -> Error {
    const std::string* v = find(key);
    if (v == nullptr) return Error();
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), *out);
    if (v->empty() || ec != std::errc() || end != v->data() + v->size()) {
      return bad(key, *v, "a non-negative integer");
    }
    return Error();
  };
  namespace key = metadata_key;
  ETKIT_TRY(count(key::kDroppedEvents, &trace.dropped_events));
  ETKIT_TRY(count(key::kDroppedPayloads, &trace.dropped_payloads));
  const size_t n = trace.blocks.size();
  if (const std::string* v = find(key::kWarmupBlocks)) {
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    if (!parse_block_ranges(*v, &ranges)) return bad(key::kWarmupBlocks, *v, "a list of ranges A:B");
    for (const auto& [first, end] : ranges) {
      if (end > n) return bad(key::kWarmupBlocks, *v, "within the dump's blocks");
      for (uint64_t b = first; b < end; ++b) trace.blocks[b].warmup = !trace.blocks[b].load;
    }
  }
  uint64_t incomplete_from = n;
  if (find(key::kIncompleteFrom) != nullptr) {
    ETKIT_TRY(count(key::kIncompleteFrom, &incomplete_from));
  } else if (trace.dropped_events > 0 && n > 0) {
    // Not said where (an older etkit): once the memory is full nothing more is recorded, not
    // even blocks, so the last block is the one that filled it.
    incomplete_from = n - 1;
  }
  for (uint64_t b = incomplete_from; b < n; ++b) trace.blocks[b].incomplete = true;
  if (const std::string* v = find(key::kInterrupted)) {
    if (*v != "1") return bad(key::kInterrupted, *v, "1");
    trace.interrupted = true;
  }
  if (const std::string* v = find(key::kClockDrift)) {
    double drift = 0;
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), drift);
    if (v->empty() || ec != std::errc() || end != v->data() + v->size() || !std::isfinite(drift) ||
        drift == 0) {
      return bad(key::kClockDrift, *v, "a non-zero number");
    }
    trace.clock_drift = drift;
  }
  // Iterations: measured and warm-up executions each numbered from 0, per method.
  std::map<std::pair<std::string, bool>, uint32_t> seen;
  for (TraceBlock& b : trace.blocks) {
    if (!b.load) b.iteration = seen[{b.method, b.warmup}]++;
  }
  return Error();
}

void add_block(const std::string& name, std::map<std::string, uint32_t>& executions,
               Trace& trace) {
  TraceBlock tb;
  tb.name = name;
  const BlockName parsed = parse_block_name(name);
  tb.method = std::string(parsed.method);
  tb.load = parsed.load;
  if (!tb.load) tb.iteration = executions[tb.method]++;
  trace.blocks.push_back(std::move(tb));
}

std::string_view delegate_text(int32_t id_int, std::string_view id_str, StringTable& strings) {
  if (id_int == -1) return id_str;
  char buf[16];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), id_int);
  return strings.intern(std::string_view(buf, static_cast<size_t>(end - buf)));
}

void put_value(Trace& trace, size_t& slot, size_t b, uint32_t& value_index, uint64_t chain_index,
               int32_t instruction_id, std::string_view delegate_id, std::string_view name,
               const LoggedValue& value, const BlockJoiner& joiner, Tensors tensors) {
  // One TraceValue, or one per tensor of a list (an empty list still gives one).
  const size_t count = std::max<size_t>(value.tensors.size(), 1);
  const uint32_t index = value_index++;
  const bool in_instruction = chain_index <= static_cast<uint64_t>(INT32_MAX);
  for (size_t t = 0; t < count; ++t) {
    TraceValue& v = slot < trace.values.size() ? trace.values[slot] : trace.values.emplace_back();
    ++slot;
    v.block = static_cast<uint32_t>(b);
    v.index = index;
    v.list_index = static_cast<uint32_t>(t);
    v.instruction = in_instruction ? instruction_id : -1;
    v.op = in_instruction ? joiner.op_of(static_cast<int32_t>(chain_index), instruction_id)
                          : std::string_view();
    v.delegate_id = delegate_id;
    v.name = name;
    v.is_output = value.is_output;
    v.kind = value.kind;
    switch (value.kind) {
      case LoggedValue::Kind::Int: v.scalar = static_cast<double>(value.int_value); break;
      case LoggedValue::Kind::Bool: v.scalar = value.bool_value ? 1 : 0; break;
      case LoggedValue::Kind::Float:
      case LoggedValue::Kind::Double: v.scalar = value.double_value; break;
      default: v.scalar = 0; break;
    }
    // Assigned, not replaced: the vectors of a reused value keep their capacity.
    if (t < value.tensors.size() && tensors != Tensors::Default) {
      if (tensors == Tensors::Copied) v.tensor = value.tensors[t];
    } else {
      v.tensor.dtype = TensorMeta().dtype;
      v.tensor.sizes.clear();
      v.tensor.strides.clear();
      v.tensor.offset = -1;
    }
  }
}

void BlockJoiner::name_operators() {
  clear_ops();
  for (const RawEvent& r : raw) {
    if (r.chain >= 0 && r.instruction_id >= 0 && r.delegate_id.empty() &&
        r.name.substr(0, event_name::kNativeCallPrefix.size()) == event_name::kNativeCallPrefix) {
      add_op(r.chain, r.instruction_id, r.name.substr(event_name::kNativeCallPrefix.size()));
    }
  }
}

void BlockJoiner::join_events(Trace& trace, size_t b, uint64_t first_start, double ns_per_tick) {
  const size_t n = raw.size();
  // The block's operators first: an instruction's native_call_ event may follow the events
  // it names.
  name_operators();

  // Start order; on equal starts the longer (enclosing) first; on equal intervals the one
  // later in the file (the parent) first.
  order_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    order_[i] = {raw[i].start, raw[i].start + raw[i].elapsed, static_cast<uint32_t>(i)};
  }
  if (!previous_order() && !nested_order()) std::sort(order_.begin(), order_.end(), before);
  previous_.resize(n);
  for (size_t k = 0; k < n; ++k) previous_[k] = order_[k].pos;
  const size_t base = trace.events.size();
  stack_.clear();
  stack_end_.clear();
  for (size_t pos = 0; pos < n; ++pos) {
    const RawEvent& r = raw[order_[pos].pos];
    TraceEvent& ev = trace.events.emplace_back();
    ev.block = static_cast<uint32_t>(b);
    ev.index = r.index;
    ev.chain = r.chain;
    ev.instruction = r.chain < 0 ? -1 : r.instruction_id;
    ev.delegate_id = r.delegate_id;
    ev.metadata = r.metadata;
    ev.delegate = !r.delegate_id.empty();
    ev.name = r.name.empty() ? r.delegate_id : r.name;
    ev.start_ns = static_cast<double>(r.start - first_start) * ns_per_tick;
    ev.duration_ns = static_cast<double>(r.elapsed) * ns_per_tick;
    ev.self_ns = ev.duration_ns;
    if (ev.delegate || ev.name == event_name::kDelegateCall) {
      ev.op = kDelegateOp;
    } else if (ev.instruction >= 0) {
      ev.op = op_of(ev.chain, ev.instruction);
    }
    // Profiler events (`prof:<device>:...`) are device time: they take no part in the host's
    // nesting, so they neither parent nor shorten host events (formats/README.md).
    if (ev.delegate && prof::is_device_event_name(ev.name)) {
      ev.device = true;
      continue;
    }
    const uint64_t end = order_[pos].end;
    while (!stack_.empty() && stack_end_.back() < end) {
      stack_.pop_back();
      stack_end_.pop_back();
    }
    // Starts are sorted, so an open event whose end is >= this end contains it.
    if (!stack_.empty()) {
      ev.parent = static_cast<int32_t>(base + stack_.back());
      ev.depth = static_cast<uint32_t>(stack_.size());
      trace.events[base + stack_.back()].self_ns -= ev.duration_ns;
    }
    stack_.push_back(pos);
    stack_end_.push_back(end);
  }
}

bool BlockJoiner::previous_order() {
  const size_t n = order_.size();
  if (n < 2 || previous_.size() != n) return false;
  scratch_.resize(n);
  for (size_t k = 0; k < n; ++k) scratch_[k] = order_[previous_[k]];
  for (size_t k = 1; k < n; ++k) {
    if (!before(scratch_[k - 1], scratch_[k])) return false;
  }
  order_.swap(scratch_);
  return true;
}

bool BlockJoiner::nested_order() {
  const size_t n = order_.size();
  if (n < 2) return true;
  next_.assign(n, UINT32_MAX);
  tail_.resize(n);
  subtrees_.clear();
  for (uint32_t i = 0; i < n; ++i) {
    const Order& e = order_[i];
    tail_[i] = i;
    uint32_t first_child = UINT32_MAX;
    // Pop the contained subtrees (rightmost first) and chain them left to right after `i`.
    while (!subtrees_.empty()) {
      const Order& top = order_[subtrees_.back()];
      if (top.start < e.start || top.end > e.end) break;
      const uint32_t root = subtrees_.back();
      subtrees_.pop_back();
      if (first_child != UINT32_MAX) next_[tail_[root]] = first_child;
      else tail_[i] = tail_[root];
      first_child = root;
    }
    if (first_child != UINT32_MAX) next_[i] = first_child;
    subtrees_.push_back(i);
  }
  scratch_.clear();
  scratch_.reserve(n);
  for (uint32_t root : subtrees_) {
    for (uint32_t k = root; k != UINT32_MAX; k = next_[k]) {
      scratch_.push_back(order_[k]);
      if (k == tail_[root]) break;
    }
  }
  if (scratch_.size() != n) return false;
  for (size_t k = 1; k < n; ++k) {
    if (!before(scratch_[k - 1], scratch_[k])) return false;
  }
  order_.swap(scratch_);
  return true;
}

}  // namespace etkit::inspect::detail
