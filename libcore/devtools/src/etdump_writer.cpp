// ETDumpWriter: recording into caller memory during the run, serializing afterwards.
//
// The memory holds, from the front, a string-intern table, a pointer cache and the event
// records (fixed size, in order); from the back, variable data (strings, metadata bytes, tensor
// shapes). The two meet when the memory is full: from then on events are counted as dropped.

#include "etkit/devtools/etdump_writer.h"

#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <string>

#include "etkit/devtools/etdump_metadata.h"
#include "etkit/formats/etdump_generated.h"

namespace etkit {

namespace efb = ::etdump;

enum class RecordType : uint8_t { Block, Allocator, Profile, Allocation, Debug };

enum RecordFlags : uint8_t {
  kOutput = 1,          // debug: a program output
  kDelegateByName = 2,  // profile/debug: `name` is the delegate's string id
  kDelegateById = 4,    // profile/debug: `delegate_int` is set
};

struct ETDumpWriter::Record {
  RecordType type;
  uint8_t value_type;  // debug: efb::ValueType
  uint8_t flags;
  uint8_t reserved;
  int32_t chain;
  int32_t instruction;
  int32_t delegate_int;
  uint32_t name;  // string ref: block/allocator/profile name, or the delegate string id
  uint32_t aux;   // profile: metadata ref; debug: tensor or tensor-list ref; block: bundled index
  uint64_t a;     // profile: start; allocation: size; debug: int/double bits/bool
  uint64_t b;     // profile: end; allocation: allocator id
};

struct ETDumpWriter::Arena {
  static constexpr uint32_t kInternSlots = 1024;
  static constexpr uint32_t kPointerSlots = 64;
  struct PointerSlot {
    const char* ptr;
    uint32_t size;
    uint32_t ref;
  };

  uint8_t* base = nullptr;
  size_t size = 0;
  uint32_t* intern = nullptr;       // kInternSlots string refs (0 = empty)
  PointerSlot* pointers = nullptr;  // kPointerSlots
  Record* records = nullptr;
  size_t num_records = 0;
  size_t front = 0;  // end of the record area
  size_t back = 0;   // start of the variable data (grows down)

  bool fits(size_t bytes) const { return back >= front && back - front >= bytes; }

  Record* add_record() {
    if (!fits(sizeof(Record))) return nullptr;
    Record* r = &records[num_records++];
    front += sizeof(Record);
    std::memset(r, 0, sizeof(Record));
    return r;
  }

  // Reserves `bytes` (8-aligned) at the back; returns the ref (offset) or 0 when full.
  uint32_t reserve(size_t bytes) {
    const size_t need = (bytes + 7) & ~size_t{7};
    if (!fits(need)) return 0;
    back -= need;
    return static_cast<uint32_t>(back);
  }

  std::string_view string_at(uint32_t ref) const {
    uint32_t n;
    std::memcpy(&n, base + ref, 4);
    return {reinterpret_cast<const char*>(base + ref + 4), n};
  }

  uint32_t store_string(std::string_view s) {
    const uint32_t ref = reserve(4 + s.size());
    if (ref == 0) return 0;
    const auto n = static_cast<uint32_t>(s.size());
    std::memcpy(base + ref, &n, 4);
    if (!s.empty()) std::memcpy(base + ref + 4, s.data(), s.size());
    return ref;
  }

  // Interns `s`; 0 when memory is full.
  uint32_t intern_string(std::string_view s) {
    PointerSlot& p = pointers[(reinterpret_cast<uintptr_t>(s.data()) >> 3) % kPointerSlots];
    if (p.ptr == s.data() && p.size == s.size() && p.ref != 0 && string_at(p.ref) == s) return p.ref;
    uint32_t h = 2166136261u;  // FNV-1a
    for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
    uint32_t ref = 0;
    for (uint32_t probe = 0; probe < kInternSlots; ++probe) {
      uint32_t& slot = intern[(h + probe) % kInternSlots];
      if (slot == 0) {
        ref = store_string(s);
        slot = ref;
        break;
      }
      if (string_at(slot) == s) {
        ref = slot;
        break;
      }
    }
    if (ref == 0) ref = store_string(s);  // table full: store without sharing
    if (ref != 0) p = {s.data(), static_cast<uint32_t>(s.size()), ref};
    return ref;
  }
};

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

size_t ETDumpWriter::recorded_records() const { return arena_ == nullptr ? 0 : arena_->num_records; }

void ETDumpWriter::create_event_block(std::string_view name) {
  ++num_blocks_;
  allocators_in_block_ = 0;
  Record* r = arena_ == nullptr ? nullptr : arena_->add_record();
  if (r == nullptr) {
    ++dropped_events_;
    return;
  }
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
    ++dropped_events_;
    return;
  }
  record_profile(name, current_chain(), current_handle(), id, by_name, start, end, metadata);
}

void ETDumpWriter::record_profile(std::string_view name, ChainId chain, DebugHandle handle,
                                  DelegateDebugIntId delegate_id, bool delegate_by_name,
                                  uint64_t start, uint64_t end,
                                  std::span<const uint8_t> metadata) {
  Record* r = arena_ == nullptr ? nullptr : arena_->add_record();
  if (r == nullptr) {
    ++dropped_events_;
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
      ++dropped_events_;
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
    ++dropped_events_;
    return ++allocators_in_block_;
  }
  r->type = RecordType::Allocator;
  r->name = arena_->intern_string(name);
  return ++allocators_in_block_;  // 1-based, per block, as ExecuTorch numbers them
}

void ETDumpWriter::track_allocation(AllocatorId id, size_t size) {
  Record* r = arena_ == nullptr ? nullptr : arena_->add_record();
  if (r == nullptr) {
    ++dropped_events_;
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
    ++dropped_events_;
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
    ++dropped_events_;
    return false;
  }
  return true;
}

// --- Serialization (host code) ---

namespace {

struct Serializer {
  const uint8_t* base;
  size_t valid_payload_bytes;
  uint64_t* extra_dropped_payloads;
  flatbuffers::FlatBufferBuilder fbb{4096};

  std::string_view string_at(uint32_t ref) const {
    uint32_t n;
    std::memcpy(&n, base + ref, 4);
    return {reinterpret_cast<const char*>(base + ref + 4), n};
  }
  flatbuffers::Offset<flatbuffers::String> str(uint32_t ref) {
    if (ref == 0) return 0;
    const std::string_view s = string_at(ref);
    return fbb.CreateSharedString(s.data(), s.size());
  }

  flatbuffers::Offset<efb::Tensor> tensor(uint32_t ref) {
    int32_t head[2];
    std::memcpy(head, base + ref, 8);
    int64_t offset;
    std::memcpy(&offset, base + ref + 8, 8);
    const auto rank = static_cast<size_t>(head[1]);
    std::vector<int64_t> sizes(rank);
    std::vector<int64_t> strides(rank);
    if (rank > 0) {
      std::memcpy(sizes.data(), base + ref + 16, 8 * rank);
      std::memcpy(strides.data(), base + ref + 16 + 8 * rank, 8 * rank);
    }
    if (offset >= 0) {
      // Payloads the sink lost after accepting them (a failed file) are marked as missing.
      uint64_t nbytes = element_size(static_cast<ScalarType>(head[0]));
      for (int64_t s : sizes) nbytes *= static_cast<uint64_t>(s);
      if (static_cast<uint64_t>(offset) + nbytes > valid_payload_bytes) {
        offset = -1;
        ++*extra_dropped_payloads;
      }
    }
    auto sizes_v = fbb.CreateVector(sizes);
    auto strides_v = fbb.CreateVector(strides);
    return efb::CreateTensor(fbb, static_cast<executorch_flatbuffer::ScalarType>(head[0]), sizes_v,
                             strides_v, offset);
  }
};

}  // namespace

std::vector<uint8_t> ETDumpWriter::serialize(std::span<const std::string> extra_metadata) const {
  uint64_t& lost_payloads = lost_payloads_;
  lost_payloads = 0;
  Serializer s{arena_ == nullptr ? nullptr : arena_->base,
               sink_ == nullptr ? 0 : sink_->valid_bytes(), &lost_payloads};
  flatbuffers::FlatBufferBuilder& fbb = s.fbb;
  std::vector<flatbuffers::Offset<efb::RunData>> runs;

  const size_t n = recorded_records();
  const Record* records = arena_ == nullptr ? nullptr : arena_->records;
  size_t i = 0;
  // Records before the first block (none in practice) go to an unnamed block.
  while (i < n) {
    uint32_t block_name = 0;
    int32_t bundled = -1;
    if (records[i].type == RecordType::Block) {
      block_name = records[i].name;
      bundled = static_cast<int32_t>(records[i].aux);
      ++i;
    }
    std::vector<flatbuffers::Offset<efb::Allocator>> allocators;
    std::vector<flatbuffers::Offset<efb::Event>> events;
    for (; i < n && records[i].type != RecordType::Block; ++i) {
      const Record& r = records[i];
      switch (r.type) {
        case RecordType::Allocator:
          allocators.push_back(efb::CreateAllocator(fbb, s.str(r.name)));
          break;
        case RecordType::Allocation: {
          auto ev = efb::CreateAllocationEvent(fbb, static_cast<int32_t>(r.b), r.a);
          events.push_back(efb::CreateEvent(fbb, 0, ev, 0));
          break;
        }
        case RecordType::Profile: {
          const bool by_name = (r.flags & kDelegateByName) != 0;
          const bool is_delegate = by_name || (r.flags & kDelegateById) != 0;
          auto name = by_name ? 0 : s.str(r.name);
          auto id_str = by_name ? s.str(r.name) : 0;
          flatbuffers::Offset<flatbuffers::Vector<uint8_t>> metadata = 0;
          if (is_delegate && r.aux != 0) {
            const std::string_view m = s.string_at(r.aux);
            metadata = fbb.CreateVector(reinterpret_cast<const uint8_t*>(m.data()), m.size());
          }
          auto ev = efb::CreateProfileEvent(fbb, name, r.chain, r.instruction, r.delegate_int,
                                            id_str, metadata, r.a, r.b);
          events.push_back(efb::CreateEvent(fbb, ev, 0, 0));
          break;
        }
        case RecordType::Debug: {
          const auto type = static_cast<efb::ValueType>(r.value_type);
          flatbuffers::Offset<efb::Tensor> tensor = 0;
          flatbuffers::Offset<efb::TensorList> list = 0;
          flatbuffers::Offset<efb::Int> int_value = 0;
          flatbuffers::Offset<efb::Double> double_value = 0;
          flatbuffers::Offset<efb::Bool> bool_value = 0;
          switch (type) {
            case efb::ValueType::Tensor: tensor = s.tensor(r.aux); break;
            case efb::ValueType::TensorList: {
              uint32_t count;
              std::memcpy(&count, s.base + r.aux, 4);
              std::vector<flatbuffers::Offset<efb::Tensor>> items;
              for (uint32_t k = 0; k < count; ++k) {
                uint32_t tref;
                std::memcpy(&tref, s.base + r.aux + 4 + 4 * k, 4);
                if (tref != 0) items.push_back(s.tensor(tref));
              }
              list = efb::CreateTensorList(fbb, fbb.CreateVector(items));
              break;
            }
            case efb::ValueType::Int:
              int_value = efb::CreateInt(fbb, static_cast<int64_t>(r.a));
              break;
            case efb::ValueType::Double: {
              double d;
              std::memcpy(&d, &r.a, 8);
              double_value = efb::CreateDouble(fbb, d);
              break;
            }
            case efb::ValueType::Bool: bool_value = efb::CreateBool(fbb, r.a != 0); break;
            default: break;
          }
          auto output = (r.flags & kOutput) != 0 ? efb::CreateBool(fbb, true) : 0;
          auto value = efb::CreateValue(fbb, type, tensor, list, int_value, 0, double_value,
                                        bool_value, output);
          const bool by_name = (r.flags & kDelegateByName) != 0;
          auto id_str = by_name ? s.str(r.name) : 0;
          // DebugEvent.chain_index is unsigned: -1 (outside a chain) is written as 2^64 - 1.
          auto ev = efb::CreateDebugEvent(fbb, static_cast<uint64_t>(static_cast<int64_t>(r.chain)),
                                          r.instruction, value, r.delegate_int, id_str, 0);
          events.push_back(efb::CreateEvent(fbb, 0, 0, ev));
          break;
        }
        case RecordType::Block:
          break;
      }
    }
    auto name = s.str(block_name);
    auto alloc_v = allocators.empty() ? 0 : fbb.CreateVector(allocators);
    auto events_v = fbb.CreateVector(events);
    runs.push_back(efb::CreateRunData(fbb, name, bundled, alloc_v, events_v));
  }

  // etkit's metadata block: readers that do not know it see an empty event block.
  namespace key = metadata_key;
  auto entry = [](std::string_view k, std::string_view v) {
    std::string e(k);
    e += '=';
    e += v;
    return e;
  };
  const std::string entries[] = {
      entry(key::kWriter, kWriterName),
      entry(key::kClock, clock_.name()),
      entry(key::kTicksPerSecond, std::to_string(clock_.ticks_per_second())),
      entry(key::kDroppedEvents, std::to_string(dropped_events_)),
      entry(key::kDroppedPayloads, std::to_string(dropped_payloads_ + lost_payloads)),
  };
  std::vector<flatbuffers::Offset<efb::Allocator>> meta;
  for (const std::string& e : entries) meta.push_back(efb::CreateAllocator(fbb, fbb.CreateString(e)));
  for (const std::string& e : extra_metadata) {
    meta.push_back(efb::CreateAllocator(fbb, fbb.CreateString(e)));
  }
  runs.push_back(efb::CreateRunData(fbb, fbb.CreateString(kMetadataBlockName), -1,
                                    fbb.CreateVector(meta),
                                    fbb.CreateVector(std::vector<flatbuffers::Offset<efb::Event>>())));

  auto root = efb::CreateETDump(fbb, 0, fbb.CreateVector(runs));
  fbb.FinishSizePrefixed(root, efb::ETDumpIdentifier());
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace etkit
