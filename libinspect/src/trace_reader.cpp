#include "etkit/inspect/trace_reader.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "block_join.h"
#include "etdump_flatbuffer.h"
#include "etkit/host/file_data_loader.h"
#include "etkit/runtime/data_loader.h"
#include "etkit/runtime/event_name.h"

namespace etkit::inspect {

using namespace detail;

namespace {

namespace fb = ::etdump;

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

struct TraceReader::Impl {
  std::optional<FileDataLoader> file;
  std::vector<uint8_t> bytes;
  detail::VerifiedDump dump;
  std::vector<size_t> runs;  // file index of each trace block (the metadata block is not one)
  std::vector<BlockSummary> summaries;  // of each trace block
  Trace skeleton;
  uint64_t first_start = 0;
  double ns_per_tick = 1;
  BlockJoiner joiner;
  FlatbufferStrings strings;
  // The value being joined without its tensors (`head_of`), whose tensors stay default.
  LoggedValue head;
  bool has_values = false;
  bool has_tensor_values = false;
  size_t size = 0;  // the dump's bytes

  // What a join reads of the logged values.
  enum class Values { None, Places, Contents };
  Error open(std::span<const uint8_t> data);
  void join(size_t b, Trace& trace, bool with_events, Values values, size_t values_from);
};

namespace {

// Adds the tensors of logged value `v` (checked) that have a payload (offset >= 0) to
// `payloads`, and notes whether it is a tensor or a list of them.
void count_payloads(const fb::Value* v, uint64_t& payloads, bool& tensors) {
  if (v == nullptr) return;
  if (v->val() == fb::ValueType::Tensor) {
    tensors = true;
    payloads += v->tensor() != nullptr && v->tensor()->offset() >= 0;
  } else if (v->val() == fb::ValueType::TensorList) {
    tensors = true;
    const auto* list = v->tensor_list() == nullptr ? nullptr : v->tensor_list()->tensors();
    for (flatbuffers::uoffset_t k = 0; list != nullptr && k < list->size(); ++k) {
      payloads += list->Get(k)->offset() >= 0;
    }
  }
}

}  // namespace

// Verifies, then checks every event as `read_etdump` and `build_trace` do, in their order:
// event errors (file order), then the tick rate, then the first span that ends before it starts.
// Every message starts with the path.
Error TraceReader::Impl::open(std::span<const uint8_t> data) {
  const std::string& path = skeleton.path;
  auto located = [&](const Error& e) { return e.with_context("%s", path.c_str()); };
  size = data.size();
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
    BlockSummary& summary = summaries.emplace_back();
    const auto* events = run->events();
    const size_t num_events = events == nullptr ? 0 : events->size();
    for (size_t i = 0; i < num_events; ++i) {
      const fb::Event* e = events->Get(static_cast<flatbuffers::uoffset_t>(i));
      if (Error err = converter.check(e, r, i); !err.ok()) return located(err);
      const fb::ProfileEvent* p = e->profile_event();
      if (p == nullptr) {
        if (e->allocation_event() != nullptr) ++summary.allocation_events;
        if (const fb::DebugEvent* d = e->debug_event(); d != nullptr) {
          has_values = true;
          ++summary.debug_events;
          count_payloads(d->debug_entry(), summary.payloads, summary.tensor_values);
          has_tensor_values = has_tensor_values || summary.tensor_values;
        }
        continue;
      }
      ++summary.profile_events;
      const auto* id_str = p->delegate_debug_id_str();
      summary.delegate_events = summary.delegate_events || p->delegate_debug_id_int() != -1 ||
                                (id_str != nullptr && id_str->size() > 0);
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
  ETKIT_TRY(apply_metadata(metadata, skeleton));
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
  // Opening verifies every byte: the pages are read in by the open call, not fault by fault.
  Result<FileDataLoader> loader = FileDataLoader::open(path, FileDataLoader::Pages::AllAtOpen);
  if (!loader.ok()) return loader.error().with_context("%s", path.c_str());
  return over_file(std::move(loader).get(), path);
}

Result<TraceReader> TraceReader::over_file(FileDataLoader file, const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->skeleton.path = path;
  impl->file.emplace(std::move(file));
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

bool TraceReader::has_values() const { return impl_->has_values; }

bool TraceReader::has_tensor_values() const { return impl_->has_tensor_values; }

TraceReader::BlockSummary TraceReader::block_summary(size_t b) const {
  return impl_->summaries[b];
}

bool TraceReader::size_prefixed() const { return impl_->dump.size_prefixed; }

size_t TraceReader::size() const { return impl_->size; }

void TraceReader::join_block(size_t b, Trace& trace) {
  impl_->join(b, trace, true, Impl::Values::Contents, trace.values.size());
}

// With `with_events` false only the values are joined: their operators need the block's
// `native_call_` events, but not the events' order, nesting and times. The values are written
// from `trace.values[values_from]` on, over those there (`put_value`), and the rest dropped;
// with `values` None none is read (each is more work than an event), with Places none is
// decoded.
void TraceReader::Impl::join(size_t b, Trace& trace, bool with_events, Values values,
                             size_t values_from) {
  strings.use(trace.strings);
  StringTable& table = strings.table();
  const size_t r = runs[b];
  const fb::RunData* run = dump.root->run_data()->Get(static_cast<flatbuffers::uoffset_t>(r));
  const auto* events = run->events();
  const size_t num_events = events == nullptr ? 0 : events->size();
  TraceBlock& block = trace.blocks[b];
  block.first_event = trace.events.size();
  block.num_events = 0;
  size_t slot = values_from;
  if (!with_events && summaries[b].debug_events == 0) {
    trace.values.resize(slot);
    return;
  }
  joiner.raw.clear();
  for (size_t i = 0; i < num_events; ++i) {
    const fb::Event* e = events->Get(static_cast<flatbuffers::uoffset_t>(i));
    const fb::ProfileEvent* p = e->profile_event();
    if (p == nullptr) continue;
    // For the values only the `native_call_` events matter (`name_operators`), and most events
    // are others: they are skipped before their strings are interned.
    if (!with_events && (p->name() == nullptr ||
                         !p->name()->string_view().starts_with(event_name::kNativeCallPrefix))) {
      continue;
    }
    RawEvent raw;
    raw.name = strings.get(p->name());
    raw.delegate_id =
        delegate_text(p->delegate_debug_id_int(), strings.get(p->delegate_debug_id_str()),
                      table);
    raw.chain = p->chain_index();
    raw.instruction_id = p->instruction_id();
    if (!with_events) {  // what `name_operators` reads
      joiner.raw.push_back(raw);
      continue;
    }
    if (const auto* md = p->delegate_debug_metadata(); md != nullptr && md->size() > 0) {
      raw.metadata = table.intern(
          std::string_view(reinterpret_cast<const char*>(md->data()), md->size()));
    }
    std::tie(raw.start, raw.elapsed) = checked_span(p->start_time(), p->end_time());
    raw.index = static_cast<uint32_t>(i);
    joiner.raw.push_back(raw);
  }
  if (with_events) {
    joiner.join_events(trace, b, first_start, ns_per_tick);
  } else {
    joiner.name_operators();
  }
  block.num_events = trace.events.size() - block.first_event;
  uint32_t value_index = 0;
  const bool read_values = values != Values::None && summaries[b].debug_events > 0;
  for (size_t i = 0; read_values && i < num_events; ++i) {
    const fb::DebugEvent* d = events->Get(static_cast<flatbuffers::uoffset_t>(i))->debug_event();
    if (d == nullptr) continue;
    // Checked at open. The tensors are converted straight into the trace's values (over those
    // the values there held), or left default for their places only.
    const fb::Value* v = d->debug_entry();
    EventConverter::head_of(v, &head);
    const size_t first = slot;
    const bool contents = values == Values::Contents;
    put_value(trace, slot, b, value_index, d->chain_index(), d->instruction_id(),
              delegate_text(d->delegate_debug_id_int(), strings.get(d->delegate_debug_id_str()),
                            table),
              strings.get(d->name()), head, joiner, contents ? Tensors::Kept : Tensors::Default);
    for (size_t t = 0; contents && t < head.tensors.size(); ++t) {
      EventConverter::convert_tensor(v, t, &trace.values[first + t].tensor);
    }
  }
  trace.values.resize(slot);
}

void TraceReader::rejoin_block(size_t b, Trace& trace) {
  trace.events.clear();
  impl_->join(b, trace, true, Impl::Values::Contents, 0);
}

void TraceReader::rejoin_places(size_t b, Trace& trace) {
  trace.events.clear();
  impl_->join(b, trace, true, Impl::Values::Places, 0);
}

void TraceReader::rejoin_events(size_t b, Trace& trace) {
  trace.events.clear();
  impl_->join(b, trace, true, Impl::Values::None, 0);
}

void TraceReader::join_values(size_t b, Trace& trace) {
  impl_->join(b, trace, false, Impl::Values::Contents, trace.values.size());
}

void TraceReader::rejoin_values(size_t b, Trace& trace) {
  trace.events.clear();
  impl_->join(b, trace, false, Impl::Values::Contents, 0);
}

Trace TraceReader::join_all() {
  Trace trace = skeleton();
  // Room for every event and (at least) every value at once: grown by doubling, the events of a
  // million-event dump had been copied twice over, and half again their size held while copied.
  size_t events = 0, values = 0;
  for (const BlockSummary& s : impl_->summaries) {
    events += s.profile_events;
    values += s.debug_events;
  }
  trace.events.reserve(events);
  trace.values.reserve(values);
  for (size_t b = 0; b < trace.blocks.size(); ++b) join_block(b, trace);
  return trace;
}

void TraceReader::release_pages() {
  if (impl_->file) impl_->file->release_pages();
}

Result<Trace> load_trace(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(TraceReader reader, TraceReader::open(path));
  return reader.join_all();
}

}  // namespace etkit::inspect
