// ETDumpWriter's hooks: recording events and values into the caller's memory during a run
// (etdump_records.h), without allocating. Serializing is etdump_serializer.cpp.

#include "etkit/devtools/etdump_writer.h"

#include <cstring>

#include "etdump_records.h"
#include "etkit/formats/etdump_generated.h"

namespace etkit {

namespace efb = ::etdump;

ETDumpWriter::ETDumpWriter(std::span<uint8_t> memory, Clock& clock)
    : arena_(nullptr), clock_(clock) {
  // The arena header lives in the memory too, so the writer allocates nothing.
  uint8_t* p = memory.data();
  size_t left = memory.size();
  auto take = [&](size_t bytes, size_t align) -> uint8_t* {
    const uintptr_t start = (reinterpret_cast<uintptr_t>(p) + align - 1) & ~(uintptr_t{align} - 1);
    const size_t skip = start - reinterpret_cast<uintptr_t>(p);
    if (skip > left || bytes > left - skip) return nullptr;
    p += skip + bytes;
    left -= skip + bytes;
    return reinterpret_cast<uint8_t*>(start);
  };
  auto* arena = reinterpret_cast<Arena*>(take(sizeof(Arena), alignof(Arena)));
  auto* intern = take(sizeof(uint32_t) * Arena::kInternSlots, alignof(uint32_t));
  auto* pointers = take(sizeof(Arena::PointerSlot) * Arena::kPointerSlots, alignof(void*));
  auto* records = take(0, alignof(Record));
  if (arena == nullptr || intern == nullptr || pointers == nullptr || records == nullptr) {
    arena_ = nullptr;  // too small: every event is dropped
    return;
  }
  arena_ = new (arena) Arena();
  arena_->intern = reinterpret_cast<uint32_t*>(intern);
  std::memset(intern, 0, sizeof(uint32_t) * Arena::kInternSlots);
  arena_->pointers = reinterpret_cast<Arena::PointerSlot*>(pointers);
  std::memset(pointers, 0, sizeof(Arena::PointerSlot) * Arena::kPointerSlots);
  // Offsets (refs) are relative to `base`; the record area starts after the header so that no
  // valid ref is 0.
  arena_->base = memory.data();
  arena_->size = memory.size();
  arena_->records = reinterpret_cast<Record*>(records);
  arena_->front = static_cast<size_t>(records - memory.data());
  arena_->back = memory.size() & ~size_t{7};
}

ETDumpWriter::~ETDumpWriter() = default;

void ETDumpWriter::drop_event() {
  // The block open at the first drop, and every later one, may miss events.
  if (dropped_events_++ == 0) first_drop_blocks_ = recorded_blocks_;
}

size_t ETDumpWriter::recorded_records() const { return arena_ == nullptr ? 0 : arena_->num_records; }

void ETDumpWriter::create_event_block(std::string_view name) {
  ++num_blocks_;
  allocators_in_block_ = 0;
  Record* r = arena_ == nullptr ? nullptr : arena_->add_record();
  if (r == nullptr) {
    drop_event();
    return;
  }
  ++recorded_blocks_;
  if (warmup_) r->flags |= kWarmupBlock;
  r->type = RecordType::Block;
  r->name = arena_->intern_string(name);
  r->aux = static_cast<uint32_t>(bundled_input_index());
}

TracerEntry ETDumpWriter::start_profiling(std::string_view name, ChainId chain,
                                          DebugHandle handle) {
  TracerEntry e;
  e.name = name.data();
  e.name_size = name.size();
  const bool unset = chain == kUnsetChainId;
  e.chain = unset ? current_chain() : chain;
  e.handle = unset ? current_handle() : handle;
  e.start = clock_.now();
  return e;
}

void ETDumpWriter::end_profiling(const TracerEntry& entry) {
  const uint64_t end = clock_.now();
  record_profile({entry.name, entry.name_size}, entry.chain, entry.handle,
                 kUnsetDelegateDebugIntId, false, entry.start, end, {});
}

TracerEntry ETDumpWriter::start_profiling_delegate(std::string_view name, DelegateDebugIntId id) {
  TracerEntry e;
  e.is_delegate = true;
  e.name = name.data();
  e.name_size = name.size();
  e.delegate_id = id;
  e.chain = current_chain();
  e.handle = current_handle();
  e.start = clock_.now();
  return e;
}

void ETDumpWriter::end_profiling_delegate(const TracerEntry& entry,
                                          std::span<const uint8_t> metadata) {
  const uint64_t end = clock_.now();
  log_profiling_delegate({entry.name, entry.name_size}, entry.delegate_id, entry.start, end,
                         metadata);
}

void ETDumpWriter::log_profiling_delegate(std::string_view name, DelegateDebugIntId id,
                                          uint64_t start, uint64_t end,
                                          std::span<const uint8_t> metadata) {
  if (profiling_level() < ProfilingLevel::All) return;
  // Exactly one identifier, as ExecuTorch requires; a malformed call is not recorded (it would
  // not be readable) but does not stop the run.
  const bool by_name = !name.empty();
  if (by_name == (id != kUnsetDelegateDebugIntId)) {
    drop_event();
    return;
  }
  record_profile(name, current_chain(), current_handle(), id, by_name, start, end, metadata);
}

void ETDumpWriter::log_profiling_delegate_named(std::string_view name, DelegateDebugIntId id,
                                                uint64_t start, uint64_t end,
                                                std::span<const uint8_t> metadata) {
  if (profiling_level() < ProfilingLevel::All) return;
  if (name.empty() || id == kUnsetDelegateDebugIntId) {
    ++dropped_events_;
    return;
  }
  // Identified by the integer id; the name is the event's name, not a string identifier.
  record_profile(name, current_chain(), current_handle(), id, false, start, end, metadata);
}

void ETDumpWriter::record_profile(std::string_view name, ChainId chain, DebugHandle handle,
                                  DelegateDebugIntId delegate_id, bool delegate_by_name,
                                  uint64_t start, uint64_t end,
                                  std::span<const uint8_t> metadata) {
  Record* r = arena_ == nullptr ? nullptr : arena_->add_record();
  if (r == nullptr) {
    drop_event();
    return;
  }
  r->type = RecordType::Profile;
  r->chain = chain;
  r->instruction = static_cast<int32_t>(handle);
  r->delegate_int = delegate_id;
  r->a = start;
  r->b = end;
  const bool is_delegate = delegate_by_name || delegate_id != kUnsetDelegateDebugIntId;
  if (delegate_by_name) r->flags |= kDelegateByName;
  if (delegate_id != kUnsetDelegateDebugIntId) r->flags |= kDelegateById;
  if (!name.empty()) {
    r->name = arena_->intern_string(name);
    if (r->name == 0) {  // names did not fit: the record is useless without one
      arena_->num_records--;
      arena_->front -= sizeof(Record);
      drop_event();
      return;
    }
  }
  if (is_delegate) {
    // Delegate events carry their metadata (possibly empty), as ExecuTorch writes them.
    r->aux = arena_->store_string({reinterpret_cast<const char*>(metadata.data()), metadata.size()});
  }
}

AllocatorId ETDumpWriter::track_allocator(std::string_view name) {
  Record* r = arena_ == nullptr ? nullptr : arena_->add_record();
  if (r == nullptr) {
    drop_event();
    return ++allocators_in_block_;
  }
  r->type = RecordType::Allocator;
  r->name = arena_->intern_string(name);
  return ++allocators_in_block_;  // 1-based, per block, as ExecuTorch numbers them
}

void ETDumpWriter::track_allocation(AllocatorId id, size_t size) {
  Record* r = arena_ == nullptr ? nullptr : arena_->add_record();
  if (r == nullptr) {
    drop_event();
    return;
  }
  r->type = RecordType::Allocation;
  r->a = size;
  r->b = id;
}

uint32_t ETDumpWriter::store_tensor(const Tensor& t, bool* ok) {
  // Layout: int32 dtype, int32 rank, int64 payload offset, int64 sizes[rank], int64 strides[rank].
  const size_t rank = static_cast<size_t>(t.dim());
  const uint32_t ref = arena_->reserve(16 + 16 * rank);
  if (ref == 0) {
    *ok = false;
    return 0;
  }
  int64_t offset = -1;
  if (t.nbytes() > 0) {
    if (sink_ != nullptr && t.data() != nullptr) {
      Result<size_t> at = sink_->write({static_cast<const uint8_t*>(t.data()), t.nbytes()});
      if (at.ok()) {
        offset = static_cast<int64_t>(*at);
      } else {
        ++dropped_payloads_;
      }
    } else {
      ++dropped_payloads_;
    }
  }
  uint8_t* p = arena_->base + ref;
  const int32_t head[2] = {static_cast<int32_t>(t.dtype()), static_cast<int32_t>(rank)};
  std::memcpy(p, head, 8);
  std::memcpy(p + 8, &offset, 8);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t size = t.sizes()[d];
    const int64_t stride = t.strides()[d];
    std::memcpy(p + 16 + 8 * d, &size, 8);
    std::memcpy(p + 16 + 8 * (rank + d), &stride, 8);
  }
  *ok = true;
  return ref;
}

Result<bool> ETDumpWriter::log_evalue(const EValue& value, LoggedValueKind kind) {
  if (kind == LoggedValueKind::ProgramOutput && debug_level() < DebugLevel::ProgramOutputs) {
    return false;
  }
  return record_value(value, kind, {}, kUnsetDelegateDebugIntId);
}

Result<bool> ETDumpWriter::record_delegate_output(std::string_view name, DelegateDebugIntId id,
                                                  const EValue& value) {
  return record_value(value, LoggedValueKind::IntermediateOutput, name, id);
}

Result<bool> ETDumpWriter::record_value(const EValue& value, LoggedValueKind kind,
                                        std::string_view name, DelegateDebugIntId id) {
  efb::ValueType type;
  switch (value.tag()) {
    case Tag::Tensor: type = efb::ValueType::Tensor; break;
    case Tag::TensorList: type = efb::ValueType::TensorList; break;
    case Tag::Int: type = efb::ValueType::Int; break;
    case Tag::Double: type = efb::ValueType::Double; break;
    case Tag::Bool: type = efb::ValueType::Bool; break;
    default:
      return Error(ErrorCode::InvalidArgument, "cannot log a %s value", tag_name(value.tag()));
  }
  Record* r = arena_ == nullptr ? nullptr : arena_->add_record();
  if (r == nullptr) {
    drop_event();
    return false;
  }
  r->type = RecordType::Debug;
  r->value_type = static_cast<uint8_t>(type);
  r->chain = current_chain();
  r->instruction = static_cast<int32_t>(current_handle());
  r->delegate_int = id;
  if (kind == LoggedValueKind::ProgramOutput) r->flags |= kOutput;
  if (!name.empty()) {
    r->flags |= kDelegateByName;
    r->name = arena_->intern_string(name);
  }
  if (id != kUnsetDelegateDebugIntId) r->flags |= kDelegateById;
  bool ok = true;
  switch (value.tag()) {
    case Tag::Tensor:
      r->aux = store_tensor(value.to_tensor(), &ok);
      break;
    case Tag::TensorList: {
      const TensorListRef& list = value.to_tensor_list();
      const uint32_t ref = arena_->reserve(4 + 4 * list.size());
      ok = ref != 0;
      if (ok) {
        const auto n = static_cast<uint32_t>(list.size());
        std::memcpy(arena_->base + ref, &n, 4);
        for (size_t i = 0; i < list.size() && ok; ++i) {
          const Tensor* t = list.at(i);
          const uint32_t tref = t == nullptr ? 0 : store_tensor(*t, &ok);
          std::memcpy(arena_->base + ref + 4 + 4 * i, &tref, 4);
        }
      }
      r->aux = ref;
      break;
    }
    case Tag::Int: r->a = static_cast<uint64_t>(value.to_int()); break;
    case Tag::Double: {
      const double d = value.to_double();
      std::memcpy(&r->a, &d, 8);
      break;
    }
    case Tag::Bool: r->a = value.to_bool() ? 1 : 0; break;
    default: break;
  }
  if (!ok) {  // shapes did not fit: drop the record rather than write a broken one
    arena_->num_records--;
    arena_->front -= sizeof(Record);
    drop_event();
    return false;
  }
  return true;
}

}  // namespace etkit
