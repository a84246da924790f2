#pragma once

// The record arena of ETDumpWriter (private to devtools): what the writer records into caller
// memory during a run, and what the serializer reads back afterwards.
//
// The memory holds, from the front, a string-intern table, a pointer cache and the event
// records (fixed size, in order); from the back, variable data (strings, metadata bytes, tensor
// shapes). The two meet when the memory is full: from then on events are counted as dropped.
// Nothing here allocates.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "etkit/devtools/etdump_writer.h"

namespace etkit {

enum class RecordType : uint8_t { Block, Allocator, Profile, Allocation, Debug };

enum RecordFlags : uint8_t {
  kOutput = 1,          // debug: a program output
  kDelegateByName = 2,  // profile/debug: `name` is the delegate's string id
  kDelegateById = 4,    // profile/debug: `delegate_int` is set
  kWarmupBlock = 8,     // block: a warm-up execution (ETDumpWriter::set_warmup)
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

}  // namespace etkit
