#include "etkit/inspect/trace.h"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "etdump_flatbuffer.h"
#include "etkit/runtime/data_loader.h"
#include "etkit/host/file_data_loader.h"

namespace etkit::inspect {

const char* time_unit_name(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::Ns: return "ns";
    case TimeUnit::Us: return "us";
    case TimeUnit::Ms: return "ms";
    case TimeUnit::S: return "s";
  }
  return "ns";
}

Result<TimeUnit> parse_time_unit(std::string_view text) {
  if (text == "ns") return TimeUnit::Ns;
  if (text == "us") return TimeUnit::Us;
  if (text == "ms") return TimeUnit::Ms;
  if (text == "s") return TimeUnit::S;
  return Error(ErrorCode::InvalidArgument, "unknown time unit '%.*s' (expected ns, us, ms or s)",
               static_cast<int>(text.size()), text.data());
}

double from_ns(double ns, TimeUnit unit) {
  switch (unit) {
    case TimeUnit::Ns: return ns;
    case TimeUnit::Us: return ns / 1e3;
    case TimeUnit::Ms: return ns / 1e6;
    case TimeUnit::S: return ns / 1e9;
  }
  return ns;
}

std::string_view StringTable::intern(std::string_view s) {
  if (auto it = index_.find(s); it != index_.end()) return *it;
  const std::string& stored = storage_.emplace_back(s);
  return *index_.insert(std::string_view(stored)).first;
}

namespace {

namespace fb = ::etdump;

constexpr std::string_view kNativeCallPrefix = "native_call_";
constexpr std::string_view kDelegateOp = "delegate";
constexpr std::string_view kProfilerPrefix = "prof:";
constexpr uint64_t kMax32 = std::numeric_limits<uint32_t>::max();

// Method and load flag from a block name (see the header comment).
std::pair<std::string, bool> method_of(const std::string& name) {
  constexpr std::string_view kLoadSuffix = ":load";
  if (name == "Default") return {"Execute", true};
  if (name.size() > kLoadSuffix.size() &&
      std::string_view(name).substr(name.size() - kLoadSuffix.size()) == kLoadSuffix) {
    return {name.substr(0, name.size() - kLoadSuffix.size()), true};
  }
  return {name, false};
}

// Raw (start ticks, elapsed ticks) of an event, unwrapping a 32-bit counter.
Result<std::pair<uint64_t, uint64_t>> span_of(uint64_t start, uint64_t end) {
  if (end >= start) return std::pair{start, end - start};
  if (start <= kMax32 && end <= kMax32) return std::pair{start, (kMax32 - start) + end};
  return Error(ErrorCode::InvalidData, "end time %llu is before start time %llu",
               static_cast<unsigned long long>(end), static_cast<unsigned long long>(start));
}

// Sets the trace's tick rate from etkit's metadata.
Error set_tick_rate(const std::map<std::string, std::string>& metadata, Trace& trace) {
  auto it = metadata.find("ticks_per_second");
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

// Appends a block named `name` to `trace` (method, load flag, iteration).
void add_block(const std::string& name, std::map<std::string, uint32_t>& executions,
               Trace& trace) {
  TraceBlock tb;
  tb.name = name;
  std::tie(tb.method, tb.load) = method_of(name);
  if (!tb.load) tb.iteration = executions[tb.method]++;
  trace.blocks.push_back(std::move(tb));
}

// The delegate debug id as text: the int when set, else the string (empty = none).
std::string_view delegate_text(int32_t id_int, std::string_view id_str, StringTable& strings) {
  if (id_int == -1) return id_str;
  char buf[16];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), id_int);
  return strings.intern(std::string_view(buf, static_cast<size_t>(end - buf)));
}

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

  // Joins `raw` into events appended to `trace.events` (see the header comment of trace.h),
  // each written once, in its place.
  void join_events(Trace& trace, size_t b, uint64_t first_start, double ns_per_tick) {
    clear_ops();
    const size_t n = raw.size();
    // The block's operators first: an instruction's native_call_ event may follow the events
    // it names.
    for (const RawEvent& r : raw) {
      if (r.chain >= 0 && r.instruction_id >= 0 && r.delegate_id.empty() &&
          r.name.substr(0, kNativeCallPrefix.size()) == kNativeCallPrefix) {
        add_op(r.chain, r.instruction_id, r.name.substr(kNativeCallPrefix.size()));
      }
    }

    // Start order; on equal starts the longer (enclosing) first; on equal intervals the one
    // later in the file (the parent) first.
    order_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      order_[i] = {raw[i].start, raw[i].start + raw[i].elapsed, static_cast<uint32_t>(i)};
    }
    if (!nested_order()) std::sort(order_.begin(), order_.end(), before);
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
      if (ev.delegate || ev.name == "DELEGATE_CALL") {
        ev.op = kDelegateOp;
      } else if (ev.instruction >= 0) {
        ev.op = op_of(ev.chain, ev.instruction);
      }
      // Profiler events (`prof:<device>:...`) are device time: they take no part in the host's
      // nesting, so they neither parent nor shorten host events (formats/README.md).
      if (ev.delegate && ev.name.substr(0, kProfilerPrefix.size()) == kProfilerPrefix) {
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
  bool nested_order() {
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
  std::vector<uint32_t> next_;      // nested_order(): successor in pre-order
  std::vector<uint32_t> tail_;      // nested_order(): last event of each subtree
  std::vector<uint32_t> subtrees_;  // nested_order(): roots of the finished subtrees
  std::vector<size_t> stack_;  // positions (in `order_`) of the open enclosing events
  std::vector<uint64_t> stack_end_;
  std::vector<std::string_view> ops0_;
  std::vector<size_t> touched_;
  std::map<std::pair<int32_t, int32_t>, std::string_view> ops_;
};

// Appends the value(s) of one debug event of block `b`.
void append_value(Trace& trace, size_t b, uint32_t& value_index, uint64_t chain_index,
                  int32_t instruction_id, std::string delegate_id, std::string name,
                  const LoggedValue& value, const BlockJoiner& joiner) {
  TraceValue v;
  v.block = static_cast<uint32_t>(b);
  v.index = value_index++;
  const bool in_instruction = chain_index <= static_cast<uint64_t>(INT32_MAX);
  v.instruction = in_instruction ? instruction_id : -1;
  if (in_instruction) {
    v.op = std::string(joiner.op_of(static_cast<int32_t>(chain_index), instruction_id));
  }
  v.delegate_id = std::move(delegate_id);
  v.name = std::move(name);
  v.is_output = value.is_output;
  v.kind = value.kind;
  switch (value.kind) {
    case LoggedValue::Kind::Int: v.scalar = static_cast<double>(value.int_value); break;
    case LoggedValue::Kind::Bool: v.scalar = value.bool_value ? 1 : 0; break;
    case LoggedValue::Kind::Float:
    case LoggedValue::Kind::Double: v.scalar = value.double_value; break;
    default: break;
  }
  if (value.tensors.empty()) {
    trace.values.push_back(std::move(v));
    return;
  }
  for (size_t t = 0; t < value.tensors.size(); ++t) {
    TraceValue tv = v;
    tv.list_index = static_cast<uint32_t>(t);
    tv.tensor = value.tensors[t];
    trace.values.push_back(std::move(tv));
  }
}

// The join of the owning model. With `consume`, each block's events are freed once joined.
Result<Trace> join_model(ETDump& dump, const std::string& path, bool consume) {
  Trace trace;
  trace.path = path;
  ETKIT_TRY(set_tick_rate(dump.metadata, trace));
  const double ns_per_tick = 1e9 / trace.ticks_per_second;

  // A first pass checks every span and finds the dump's first start.
  uint64_t first_start = std::numeric_limits<uint64_t>::max();
  for (size_t b = 0; b < dump.blocks.size(); ++b) {
    const RunBlock& block = dump.blocks[b];
    for (size_t i = 0; i < block.events.size(); ++i) {
      const Event& e = block.events[i];
      if (e.kind != Event::Kind::Profile) continue;
      Result<std::pair<uint64_t, uint64_t>> span =
          span_of(e.profile.start_time, e.profile.end_time);
      // The file position counts the metadata block only when it precedes this one; etkit
      // writes it last, so block indices are file indices.
      if (!span.ok()) return span.error().with_context("%s: run %zu event %zu", path.c_str(), b, i);
      first_start = std::min(first_start, span->first);
    }
  }

  StringTable& strings = *trace.strings;
  std::map<std::string, uint32_t> executions;  // method -> execution blocks seen
  for (const RunBlock& block : dump.blocks) add_block(block.name, executions, trace);
  BlockJoiner joiner;
  for (size_t b = 0; b < dump.blocks.size(); ++b) {
    const RunBlock& block = dump.blocks[b];
    trace.blocks[b].first_event = trace.events.size();
    joiner.raw.clear();
    for (size_t i = 0; i < block.events.size(); ++i) {
      const Event& e = block.events[i];
      if (e.kind != Event::Kind::Profile) continue;
      const ProfileEvent& p = e.profile;
      RawEvent r;
      r.name = strings.intern(p.name);
      r.delegate_id = delegate_text(p.delegate_debug_id_int,
                                    strings.intern(p.delegate_debug_id_str), strings);
      if (!p.delegate_debug_metadata.empty()) {
        r.metadata = strings.intern(
            std::string_view(reinterpret_cast<const char*>(p.delegate_debug_metadata.data()),
                             p.delegate_debug_metadata.size()));
      }
      std::tie(r.start, r.elapsed) = *span_of(p.start_time, p.end_time);  // checked above
      r.index = static_cast<uint32_t>(i);
      r.chain = p.chain_index;
      r.instruction_id = p.instruction_id;
      joiner.raw.push_back(r);
    }
    joiner.join_events(trace, b, first_start, ns_per_tick);
    trace.blocks[b].num_events = trace.events.size() - trace.blocks[b].first_event;
    uint32_t value_index = 0;
    for (const Event& e : block.events) {
      if (e.kind != Event::Kind::Debug) continue;
      const DebugEvent& d = e.debug;
      std::string id = d.delegate_debug_id_int != -1 ? std::to_string(d.delegate_debug_id_int)
                                                     : d.delegate_debug_id_str;
      append_value(trace, b, value_index, d.chain_index, d.instruction_id, std::move(id), d.name,
                   d.value, joiner);
    }
    if (consume) std::vector<Event>().swap(dump.blocks[b].events);
  }
  return trace;
}

// Interns flatbuffer strings, remembering recent ones by address (etkit's writer shares equal
// strings, so a name is usually one address).
class FlatbufferStrings {
 public:
  void use(const std::shared_ptr<StringTable>& table) {
    if (table == table_) return;
    table_ = table;
    slots_.fill(Slot{});
  }
  StringTable& table() { return *table_; }
  std::string_view get(const flatbuffers::String* s) {
    if (s == nullptr) return {};
    Slot& slot = slots_[(reinterpret_cast<uintptr_t>(s) >> 2) % kSlots];
    if (slot.key != s) slot = {s, table_->intern(s->string_view())};
    return slot.view;
  }

 private:
  static constexpr size_t kSlots = 1024;
  struct Slot {
    const flatbuffers::String* key = nullptr;
    std::string_view view;
  };
  std::shared_ptr<StringTable> table_;
  std::array<Slot, kSlots> slots_{};
};

std::string fb_str(const flatbuffers::String* s) { return s == nullptr ? std::string() : s->str(); }

}  // namespace

std::string_view event_device(const TraceEvent& e) {
  if (!e.device) return {};
  const std::string_view rest = e.name.substr(kProfilerPrefix.size());
  return rest.substr(0, rest.find(':'));
}

Result<Trace> build_trace(const ETDump& dump, const std::string& path) {
  // join_model() only writes to the dump when it consumes it.
  return join_model(const_cast<ETDump&>(dump), path, false);
}

Result<Trace> build_trace(ETDump&& dump, const std::string& path) {
  return join_model(dump, path, true);
}

struct TraceReader::Impl {
  std::optional<FileDataLoader> file;
  std::vector<uint8_t> bytes;
  detail::VerifiedDump dump;
  std::vector<size_t> runs;  // file index of each trace block (the metadata block is not one)
  Trace skeleton;
  uint64_t first_start = 0;
  double ns_per_tick = 1;
  BlockJoiner joiner;
  FlatbufferStrings strings;

  Error open(std::span<const uint8_t> data);
};

// Verifies, then checks every event as `read_etdump` and `build_trace` do, in their order:
// event errors (file order), then the tick rate, then the first span that ends before it starts.
// Every message starts with the path.
Error TraceReader::Impl::open(std::span<const uint8_t> data) {
  const std::string& path = skeleton.path;
  auto located = [&](const Error& e) { return e.with_context("%s", path.c_str()); };
  if (Error e = detail::verify_etdump(data, &dump); !e.ok()) return located(e);
  detail::EventConverter converter(dump.origin);
  std::map<std::string, std::string> metadata;
  std::map<std::string, uint32_t> executions;
  Error span_error;
  uint64_t first = std::numeric_limits<uint64_t>::max();
  const auto* run_data = dump.root->run_data();
  const size_t num_runs = run_data == nullptr ? 0 : run_data->size();
  for (size_t r = 0; r < num_runs; ++r) {
    const fb::RunData* run = run_data->Get(static_cast<flatbuffers::uoffset_t>(r));
    if (run->name() != nullptr && run->name()->string_view() == kMetadataBlockName) {
      if (Error e = converter.read_metadata(run, r, &metadata); !e.ok()) return located(e);
      continue;
    }
    const size_t b = skeleton.blocks.size();
    add_block(fb_str(run->name()), executions, skeleton);
    runs.push_back(r);
    const auto* events = run->events();
    const size_t num_events = events == nullptr ? 0 : events->size();
    for (size_t i = 0; i < num_events; ++i) {
      const fb::Event* e = events->Get(static_cast<flatbuffers::uoffset_t>(i));
      if (Error err = converter.check(e, r, i); !err.ok()) return located(err);
      const fb::ProfileEvent* p = e->profile_event();
      if (p == nullptr) continue;
      Result<std::pair<uint64_t, uint64_t>> span = span_of(p->start_time(), p->end_time());
      if (!span.ok()) {
        // As build_trace numbers it: blocks without the metadata block.
        if (span_error.ok()) {
          span_error = span.error().with_context("%s: run %zu event %zu", path.c_str(), b, i);
        }
        continue;
      }
      first = std::min(first, span->first);
    }
  }
  ETKIT_TRY(set_tick_rate(metadata, skeleton));
  if (!span_error.ok()) return span_error;
  first_start = first;
  ns_per_tick = 1e9 / skeleton.ticks_per_second;
  return Error();
}

TraceReader::TraceReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceReader::TraceReader(TraceReader&&) noexcept = default;
TraceReader& TraceReader::operator=(TraceReader&&) noexcept = default;
TraceReader::~TraceReader() = default;

Result<TraceReader> TraceReader::open(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->skeleton.path = path;
  Result<FileDataLoader> loader = FileDataLoader::open(path);
  if (!loader.ok()) return loader.error().with_context("%s", path.c_str());
  impl->file.emplace(std::move(loader).get());
  ETKIT_TRY(impl->open(impl->file->data()));
  return TraceReader(std::move(impl));
}

Result<TraceReader> TraceReader::from_bytes(std::vector<uint8_t> bytes, const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->skeleton.path = path;
  impl->bytes = std::move(bytes);
  ETKIT_TRY(impl->open(impl->bytes));
  return TraceReader(std::move(impl));
}

Result<TraceReader> TraceReader::over(std::span<const uint8_t> bytes, const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->skeleton.path = path;
  ETKIT_TRY(impl->open(bytes));
  return TraceReader(std::move(impl));
}

Trace TraceReader::skeleton() const { return impl_->skeleton; }

void TraceReader::join_block(size_t b, Trace& trace) {
  Impl& m = *impl_;
  m.strings.use(trace.strings);
  StringTable& strings = m.strings.table();
  const size_t r = m.runs[b];
  const fb::RunData* run = m.dump.root->run_data()->Get(static_cast<flatbuffers::uoffset_t>(r));
  const auto* events = run->events();
  const size_t num_events = events == nullptr ? 0 : events->size();
  BlockJoiner& joiner = m.joiner;
  joiner.raw.clear();
  bool has_values = false;
  for (size_t i = 0; i < num_events; ++i) {
    const fb::Event* e = events->Get(static_cast<flatbuffers::uoffset_t>(i));
    const fb::ProfileEvent* p = e->profile_event();
    if (p == nullptr) {
      has_values = has_values || e->debug_event() != nullptr;
      continue;
    }
    RawEvent raw;
    raw.name = m.strings.get(p->name());
    raw.delegate_id =
        delegate_text(p->delegate_debug_id_int(), m.strings.get(p->delegate_debug_id_str()),
                      strings);
    if (const auto* md = p->delegate_debug_metadata(); md != nullptr && md->size() > 0) {
      raw.metadata = strings.intern(
          std::string_view(reinterpret_cast<const char*>(md->data()), md->size()));
    }
    std::tie(raw.start, raw.elapsed) = *span_of(p->start_time(), p->end_time());  // checked
    raw.index = static_cast<uint32_t>(i);
    raw.chain = p->chain_index();
    raw.instruction_id = p->instruction_id();
    joiner.raw.push_back(raw);
  }
  TraceBlock& block = trace.blocks[b];
  block.first_event = trace.events.size();
  joiner.join_events(trace, b, m.first_start, m.ns_per_tick);
  block.num_events = trace.events.size() - block.first_event;
  if (!has_values) return;
  detail::EventConverter converter(m.dump.origin);
  uint32_t value_index = 0;
  for (size_t i = 0; i < num_events; ++i) {
    const fb::DebugEvent* d = events->Get(static_cast<flatbuffers::uoffset_t>(i))->debug_event();
    if (d == nullptr) continue;
    Result<LoggedValue> value = converter.convert_value(d->debug_entry(), r, i);  // checked
    std::string id = d->delegate_debug_id_int() != -1
                         ? std::to_string(d->delegate_debug_id_int())
                         : fb_str(d->delegate_debug_id_str());
    append_value(trace, b, value_index, d->chain_index(), d->instruction_id(), std::move(id),
                 fb_str(d->name()), *value, joiner);
  }
}

Trace TraceReader::join_all() {
  Trace trace = skeleton();
  for (size_t b = 0; b < trace.blocks.size(); ++b) join_block(b, trace);
  return trace;
}

Result<Trace> load_trace(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(TraceReader reader, TraceReader::open(path));
  return reader.join_all();
}

Result<const MethodDebugMap*> debug_map_method(const DebugMap& map, const std::string& method,
                                               const std::string& path) {
  if (auto it = map.methods.find(method); it != map.methods.end()) return &it->second;
  if (method == "Execute") {
    if (auto it = map.methods.find("forward"); it != map.methods.end()) return &it->second;
    if (map.methods.size() == 1) return &map.methods.begin()->second;
  }
  std::string all;
  for (const auto& [name, m] : map.methods) all += (all.empty() ? "'" : ", '") + name + "'";
  return Error(ErrorCode::NotFound, "%s: method '%s' is not in the debug map (methods: %s)",
               path.c_str(), method.c_str(), all.c_str());
}

Error name_operators(Trace& trace, const DebugMap& map) {
  OperatorNamer namer(map);
  return namer.apply(trace);
}

std::span<const uint32_t> event_debug_handles(const Trace& trace, const TraceEvent& e,
                                              const DebugMap& map) {
  if (e.instruction < 0) return {};
  Result<const MethodDebugMap*> m = debug_map_method(map, trace.blocks[e.block].method, "");
  if (!m.ok()) return {};
  // A delegate event by its id, looked up exactly; another event by its instruction.
  return (*m)->handles_at(e.chain, e.instruction, e.delegate ? e.delegate_id : "");
}

Error OperatorNamer::apply(Trace& trace) {
  if (program_ != nullptr) ETKIT_TRY(apply_program(trace));
  if (map_ != nullptr) ETKIT_TRY(apply_map(trace));
  return Error();
}

Error OperatorNamer::apply_map(Trace& trace) {
  {
    StringTable& strings = *trace.strings;
    auto name_of = [&](uint32_t block, int32_t chain,
                       int32_t instruction) -> Result<std::optional<std::string>> {
      ETKIT_ASSIGN_OR_RETURN(const MethodDebugMap* m,
                             debug_map_method(*map_, trace.blocks[block].method, trace.path));
      if (instruction < 0) return std::optional<std::string>();
      const InstructionEntry* entry = m->find_instruction(chain, instruction);
      if (entry == nullptr) return std::optional<std::string>();
      switch (entry->kind) {
        case InstructionKind::Kernel:
          if (entry->op.empty()) return std::optional<std::string>();
          return std::optional<std::string>(entry->op);
        case InstructionKind::Delegate:
          return std::optional<std::string>("delegate " + entry->op);
        default:
          return std::optional<std::string>(instruction_kind_name(entry->kind));
      }
    };
    for (TraceEvent& e : trace.events) {
      if (e.delegate) continue;  // a delegate's own events keep operator "delegate"
      ETKIT_ASSIGN_OR_RETURN(std::optional<std::string> op,
                             name_of(e.block, e.chain, e.instruction));
      if (op) e.op = strings.intern(*op);
    }
    for (TraceValue& v : trace.values) {
      ETKIT_ASSIGN_OR_RETURN(std::optional<std::string> op, name_of(v.block, 0, v.instruction));
      if (op) v.op = *op;
    }
    return Error();
  }
}

Error OperatorNamer::apply_program(Trace& trace) {
  const Program& program = *program_;
  auto lookup = [&](const std::string& method) -> Result<const std::vector<std::string>*> {
    if (auto it = names_.find(method); it != names_.end()) return &it->second;
    std::string name = method;
    std::string all;
    bool found = false;
    for (size_t m = 0; m < program.num_methods(); ++m) {
      const std::string_view candidate = program.method_name(m);
      all += (all.empty() ? "'" : ", '") + std::string(candidate) + "'";
      if (candidate == method) found = true;
    }
    if (!found && method == "Execute") {
      bool has_forward = false;
      for (size_t m = 0; m < program.num_methods(); ++m) {
        has_forward = has_forward || program.method_name(m) == "forward";
      }
      if (has_forward) {
        name = "forward";
        found = true;
      } else if (program.num_methods() == 1) {
        name = std::string(program.method_name(0));
        found = true;
      }
    }
    if (!found) {
      return Error(ErrorCode::NotFound, "%s: method '%s' is not in the program (methods: %s)",
                   trace.path.c_str(), method.c_str(), all.c_str());
    }
    ETKIT_ASSIGN_OR_RETURN(MethodMeta meta, program.method_meta(name));
    std::vector<std::string> list(meta.num_instructions());
    for (size_t i = 0; i < list.size(); ++i) list[i] = meta.instruction_name(i);
    return &names_.emplace(method, std::move(list)).first->second;
  };
  // The instruction's name, or nullptr when the event is not in chain 0.
  auto name_of = [&](uint32_t block, int32_t chain,
                     int32_t instruction) -> Result<const std::string*> {
    if (chain != 0 || instruction < 0) return static_cast<const std::string*>(nullptr);
    ETKIT_ASSIGN_OR_RETURN(const std::vector<std::string>* list,
                           lookup(trace.blocks[block].method));
    if (static_cast<size_t>(instruction) >= list->size()) {
      return Error(ErrorCode::InvalidData,
                   "%s: block %u has instruction %d but method '%s' has %zu instructions (was "
                   "the dump made with this program?)",
                   trace.path.c_str(), block, instruction, trace.blocks[block].method.c_str(),
                   list->size());
    }
    return &(*list)[static_cast<size_t>(instruction)];
  };
  StringTable& strings = *trace.strings;
  for (TraceEvent& e : trace.events) {
    if (e.delegate) continue;  // a delegate's own events keep operator "delegate"
    ETKIT_ASSIGN_OR_RETURN(const std::string* op, name_of(e.block, e.chain, e.instruction));
    if (op != nullptr) e.op = strings.intern(*op);
  }
  for (TraceValue& v : trace.values) {
    // Values carry no chain; logged values come from chain 0 in exported programs.
    ETKIT_ASSIGN_OR_RETURN(const std::string* op, name_of(v.block, 0, v.instruction));
    if (op != nullptr) v.op = *op;
  }
  return Error();
}

Error name_operators(Trace& trace, const Program& program) {
  OperatorNamer namer(program);
  return namer.apply(trace);
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
