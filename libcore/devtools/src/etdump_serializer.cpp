// ETDumpWriter::serialize: the recorded arena (etdump_records.h) to an ETDump FlatBuffer, after
// the run (host code: it allocates).

#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "etdump_records.h"
#include "etkit/devtools/etdump_metadata.h"
#include "etkit/devtools/etdump_writer.h"
#include "etkit/formats/etdump_generated.h"

namespace etkit {

namespace efb = ::etdump;

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
  // The string at `ref`, written once per distinct text. Names are interned while recording, so
  // every event of one name has the same ref: the last few refs are looked up first, before
  // the builder's own (comparing) set of shared strings.
  flatbuffers::Offset<flatbuffers::String> str(uint32_t ref) {
    if (ref == 0) return 0;
    for (const auto& [r, offset] : recent) {
      if (r == ref) return offset;
    }
    const std::string_view s = string_at(ref);
    const flatbuffers::Offset<flatbuffers::String> offset =
        fbb.CreateSharedString(s.data(), s.size());
    recent[next_recent++ % kRecent] = {ref, offset};
    return offset;
  }
  static constexpr size_t kRecent = 8;
  std::pair<uint32_t, flatbuffers::Offset<flatbuffers::String>> recent[kRecent] = {};
  size_t next_recent = 0;

  // A ProfileEvent without alignment padding. FlatBuffers aligns the two 8-byte times to 8
  // from the buffer's end; an event (28 bytes with its name and instruction) plus its Event
  // table (8) leaves the buffer 4 bytes off, and the next event's times would be padded. When
  // the buffer is 4 bytes off, one 4-byte field goes first and takes the padding's place: an
  // operator event is then 40 bytes with its slot in the events vector, not 44. The order of
  // fields inside a table is free (readers, ExecuTorch's too, find them through the vtable);
  // the two orders give two vtables, each written once.
  flatbuffers::Offset<efb::ProfileEvent> profile_event(
      flatbuffers::Offset<flatbuffers::String> name, int32_t chain, int32_t instruction,
      int32_t delegate_int, flatbuffers::Offset<flatbuffers::String> id_str,
      flatbuffers::Offset<flatbuffers::Vector<uint8_t>> metadata, uint64_t start, uint64_t end) {
    // The 4-byte fields, each written only when it is not the schema's default.
    const bool present[] = {!name.IsNull(),     instruction != -1, chain != 0,
                            delegate_int != -1, !id_str.IsNull(),  !metadata.IsNull()};
    constexpr int kFields = sizeof(present) / sizeof(present[0]);
    efb::ProfileEventBuilder b(fbb);
    auto add = [&](int field) {
      switch (field) {
        case 0:
          b.add_name(name);
          break;
        case 1:
          b.add_instruction_id(instruction);
          break;
        case 2:
          b.add_chain_index(chain);
          break;
        case 3:
          b.add_delegate_debug_id_int(delegate_int);
          break;
        case 4:
          b.add_delegate_debug_id_str(id_str);
          break;
        default:
          b.add_delegate_debug_metadata(metadata);
          break;
      }
    };
    int first = -1;
    if (fbb.GetSize() % 8 != 0 && (start != 0 || end != 0)) {
      for (int f = 0; f < kFields && first < 0; ++f) {
        if (present[f]) first = f;
      }
    }
    if (first >= 0) add(first);
    b.add_end_time(end);
    b.add_start_time(start);
    for (int f = 0; f < kFields; ++f) {
      if (f != first && present[f]) add(f);
    }
    return b.Finish();
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
  std::vector<std::pair<uint64_t, uint64_t>> warmup;  // run indices of warm-up blocks
  // Records before the first block (none in practice) go to an unnamed block, which shifts the
  // index of every recorded block by one.
  const size_t leading_block = n > 0 && records[0].type != RecordType::Block ? 1 : 0;
  while (i < n) {
    uint32_t block_name = 0;
    int32_t bundled = -1;
    if (records[i].type == RecordType::Block) {
      block_name = records[i].name;
      bundled = static_cast<int32_t>(records[i].aux);
      if ((records[i].flags & kWarmupBlock) != 0) {
        const uint64_t run = runs.size();
        if (!warmup.empty() && warmup.back().second == run) {
          warmup.back().second = run + 1;
        } else {
          warmup.emplace_back(run, run + 1);
        }
      }
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
          auto ev = s.profile_event(name, r.chain, r.instruction, r.delegate_int, id_str,
                                    metadata, r.a, r.b);
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
  std::vector<std::string> entries = {
      entry(key::kWriter, kWriterName),
      entry(key::kClock, clock_.name()),
      entry(key::kTicksPerSecond, std::to_string(clock_.ticks_per_second())),
      entry(key::kDroppedEvents, std::to_string(dropped_events_)),
      entry(key::kDroppedPayloads, std::to_string(dropped_payloads_ + lost_payloads)),
  };
  // Written only when they say something, so that other dumps stay as they were.
  if (!warmup.empty()) entries.push_back(entry(key::kWarmupBlocks, format_block_ranges(warmup)));
  if (dropped_events_ > 0) {
    const size_t open_block = first_drop_blocks_ == 0 ? 0 : first_drop_blocks_ - 1;
    entries.push_back(entry(key::kIncompleteFrom, std::to_string(leading_block + open_block)));
  }
  if (interrupted_) entries.push_back(entry(key::kInterrupted, "1"));
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
