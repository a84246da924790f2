// The shared-memory manager: discovery tables -> checked buffer list -> arenas with initial
// values written once. See shared_memory.h.

#include "etkit/host/shared_memory.h"

#include <algorithm>
#include <cinttypes>
#include <cstdlib>
#include <cstring>

#include "etkit/host/runner.h"

namespace etkit {

namespace {


constexpr size_t kPlanColumns = kSharedBufferPlanColumns;
// PlannedMemory can mark ids 1..64 as pre-initialised.
constexpr int64_t kMaxSharedMemoryId = 64;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

struct Arena {
  uint32_t memory_id = 0;
  uint64_t size = 0;
  std::unique_ptr<uint8_t, FreeDeleter> bytes;
};

// A discovery method's one constant tensor output, copied out.
struct Table {
  std::vector<int32_t> sizes;
  std::vector<uint8_t> bytes;
};

Result<Table> read_table(const Program& program, std::string_view method, ScalarType dtype) {
  const auto fail = [&](const char* what) {
    return Error(ErrorCode::InvalidProgram, "method '%.*s': %s", static_cast<int>(method.size()),
                 method.data(), what);
  };
  ETKIT_ASSIGN_OR_RETURN(MethodMeta meta, program.method_meta(method));
  if (meta.num_inputs() != 0) return fail("a shared-buffer table takes no inputs");
  if (meta.num_instructions() != 0) return fail("a shared-buffer table has no instructions");
  if (meta.num_outputs() != 1) return fail("a shared-buffer table has exactly one output");
  Result<ValueInfo> info = meta.output(0);
  if (!info.ok() || info->tag != Tag::Tensor || !info->constant) {
    return fail("the output is not a constant tensor");
  }
  if (info->dtype != dtype || info->sizes.size() != 2) {
    char what[96];
    std::snprintf(what, sizeof(what), "the output is %s with %zu dimension(s), expected %s [n, m]",
                  scalar_type_name(info->dtype), info->sizes.size(), scalar_type_name(dtype));
    return fail(what);
  }
  // Loading runs no kernel: the output points at the program's constant bytes.
  Result<LoadedMethod> loaded = LoadedMethod::load(program, method, RunnerOptions());
  if (!loaded.ok()) {
    return loaded.error().with_context("method '%.*s'", static_cast<int>(method.size()),
                                       method.data());
  }
  const Tensor& t = loaded->method().output(0).to_tensor();
  Table table;
  table.sizes.assign(t.sizes().begin(), t.sizes().end());
  const auto* data = static_cast<const uint8_t*>(t.data());
  table.bytes.assign(data, data + t.nbytes());
  return table;
}

int64_t read_i64(const std::vector<uint8_t>& bytes, size_t index) {
  int64_t v;
  std::memcpy(&v, bytes.data() + index * sizeof(int64_t), sizeof(v));
  return v;
}

Result<std::vector<SharedBufferInfo>> read_rows(const Program& program) {
  ETKIT_ASSIGN_OR_RETURN(Table names,
                         read_table(program, kSharedBufferNamesMethod, ScalarType::Byte));
  ETKIT_ASSIGN_OR_RETURN(Table plan, read_table(program, kSharedBufferPlanMethod, ScalarType::Long));
  const auto plan_name = static_cast<int>(kSharedBufferPlanMethod.size());
  if (plan.sizes[1] != static_cast<int32_t>(kPlanColumns)) {
    return Error(ErrorCode::InvalidProgram, "method '%.*s': rows have %d columns, expected %zu",
                 plan_name, kSharedBufferPlanMethod.data(), plan.sizes[1], kPlanColumns);
  }
  if (plan.sizes[0] != names.sizes[0]) {
    return Error(ErrorCode::InvalidProgram,
                 "method '%.*s' lists %d buffer(s) but '%.*s' names %d", plan_name,
                 kSharedBufferPlanMethod.data(), plan.sizes[0],
                 static_cast<int>(kSharedBufferNamesMethod.size()),
                 kSharedBufferNamesMethod.data(), names.sizes[0]);
  }
  const size_t n = static_cast<size_t>(plan.sizes[0]);
  const size_t width = static_cast<size_t>(names.sizes[1]);
  std::vector<SharedBufferInfo> rows(n);
  for (size_t r = 0; r < n; ++r) {
    SharedBufferInfo& b = rows[r];
    const char* row = reinterpret_cast<const char*>(names.bytes.data() + r * width);
    b.name.assign(row, strnlen(row, width));
    if (b.name.empty()) {
      return Error(ErrorCode::InvalidProgram, "method '%.*s': row %zu has an empty name",
                   static_cast<int>(kSharedBufferNamesMethod.size()),
                   kSharedBufferNamesMethod.data(), r);
    }
    for (size_t k = 0; k < r; ++k) {
      if (rows[k].name == b.name) {
        return Error(ErrorCode::InvalidProgram, "method '%.*s': rows %zu and %zu are both '%s'",
                     static_cast<int>(kSharedBufferNamesMethod.size()),
                     kSharedBufferNamesMethod.data(), k, r, b.name.c_str());
      }
    }
    int64_t f[kPlanColumns];
    for (size_t c = 0; c < kPlanColumns; ++c) f[c] = read_i64(plan.bytes, r * kPlanColumns + c);
    if (f[0] < 1 || f[0] > kMaxSharedMemoryId || f[2] < 0 || f[3] < 0 || f[4] < 0 || f[5] < 0) {
      return Error(ErrorCode::InvalidProgram,
                   "shared buffer '%s': bad row (mem_id %" PRId64 ", offset %" PRId64
                   ", allocated %" PRId64 ", actual %" PRId64 ", numel %" PRId64
                   "): sizes must not be negative, mem_id in 1..%" PRId64,
                   b.name.c_str(), f[0], f[2], f[3], f[4], f[5], kMaxSharedMemoryId);
    }
    b.memory_id = static_cast<uint32_t>(f[0]);
    b.mem_obj_id = f[1];
    b.offset = static_cast<uint64_t>(f[2]);
    b.allocated_bytes = static_cast<uint64_t>(f[3]);
    b.actual_bytes = static_cast<uint64_t>(f[4]);
    b.numel = static_cast<uint64_t>(f[5]);
    if (b.actual_bytes > b.allocated_bytes) {
      return Error(ErrorCode::InvalidProgram,
                   "shared buffer '%s': %" PRIu64 " actual bytes exceed its %" PRIu64
                   " allocated bytes",
                   b.name.c_str(), b.actual_bytes, b.allocated_bytes);
    }
    if (b.offset > UINT64_MAX / 2 || b.allocated_bytes > UINT64_MAX / 2) {
      return Error(ErrorCode::InvalidProgram, "shared buffer '%s': offset or size out of range",
                   b.name.c_str());
    }
  }
  return rows;
}

// Sizes every shared memory id from the methods' plans; they must agree.
Result<std::vector<Arena>> size_arenas(const Program& program,
                                       const std::vector<SharedBufferInfo>& rows) {
  std::vector<uint32_t> ids;
  for (const SharedBufferInfo& b : rows) ids.push_back(b.memory_id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<Arena> arenas;
  for (uint32_t id : ids) {
    Arena arena;
    arena.memory_id = id;
    std::string_view sized_by;
    for (size_t m = 0; m < program.num_methods(); ++m) {
      const std::string_view name = program.method_name(m);
      ETKIT_ASSIGN_OR_RETURN(MethodMeta meta, program.method_meta(name));
      if (meta.num_planned_buffers() < id) continue;
      const uint64_t size = meta.planned_buffer_size(id - 1);
      if (!sized_by.empty() && size != arena.size) {
        return Error(ErrorCode::InvalidProgram,
                     "method '%.*s' plans %" PRIu64 " bytes for shared memory id %u, method '%.*s' "
                     "plans %" PRIu64 " (they must agree)",
                     static_cast<int>(name.size()), name.data(), size, id,
                     static_cast<int>(sized_by.size()), sized_by.data(), arena.size);
      }
      arena.size = size;
      sized_by = name;
    }
    if (sized_by.empty()) {
      return Error(ErrorCode::InvalidProgram, "shared memory id %u is planned by no method", id);
    }
    // Every buffer fits the arena of every method that plans the id (they all have that size).
    for (const SharedBufferInfo& b : rows) {
      if (b.memory_id != id) continue;
      if (b.offset + b.allocated_bytes > arena.size) {
        return Error(ErrorCode::InvalidProgram,
                     "shared buffer '%s' [%" PRIu64 ", +%" PRIu64 ") does not fit memory id %u "
                     "of method '%.*s' (%" PRIu64 " bytes)",
                     b.name.c_str(), b.offset, b.allocated_bytes, id,
                     static_cast<int>(sized_by.size()), sized_by.data(), arena.size);
      }
    }
    arenas.push_back(std::move(arena));
  }
  // Buffers of one id must not overlap.
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t k = i + 1; k < rows.size(); ++k) {
      const SharedBufferInfo& a = rows[i];
      const SharedBufferInfo& b = rows[k];
      if (a.memory_id == b.memory_id && a.allocated_bytes > 0 && b.allocated_bytes > 0 &&
          a.offset < b.offset + b.allocated_bytes && b.offset < a.offset + a.allocated_bytes) {
        return Error(ErrorCode::InvalidProgram, "shared buffers '%s' and '%s' overlap in memory id %u",
                     a.name.c_str(), b.name.c_str(), a.memory_id);
      }
    }
  }
  return arenas;
}

// A range of an arena written with initial values, and by which method.
struct Written {
  uint32_t memory_id;
  uint64_t offset;
  uint64_t size;
  std::string_view method;
};

}  // namespace

struct SharedMemoryManager::Impl {
  std::vector<SharedBufferInfo> buffers;
  std::vector<Arena> arenas;
  std::vector<uint32_t> ids;
  // Where `create` wrote initial values: arena, offset, and the program's bytes (for reset).
  struct InitialWrite {
    Arena* arena;
    uint64_t offset;
    std::span<const uint8_t> bytes;
  };
  std::vector<InitialWrite> initial_writes;

  Arena* find_arena(uint32_t id) {
    for (Arena& a : arenas) {
      if (a.memory_id == id) return &a;
    }
    return nullptr;
  }

  // Records every method's tensors in the shared ids and writes their initial values.
  Error scan_methods(const Program& program) {
    std::vector<Written> written;
    for (size_t m = 0; m < program.num_methods(); ++m) {
      const std::string_view method = program.method_name(m);
      ETKIT_ASSIGN_OR_RETURN(const MethodMeta meta, program.method_meta(method));
      for (size_t v = 0; v < meta.num_values(); ++v) {
        PlannedTensor t;
        if (!meta.planned_tensor(v, &t)) continue;
        Arena* arena = find_arena(t.memory_id);
        if (arena == nullptr) continue;
        Error e = scan_tensor(program, method, t, *arena, written);
        if (!e.ok()) {
          return e.with_context("method '%.*s': value %zu", static_cast<int>(method.size()),
                                method.data(), v);
        }
      }
    }
    return Error();
  }

  Error scan_tensor(const Program& program, std::string_view method, const PlannedTensor& t,
                    Arena& arena, std::vector<Written>& written) {
    const uint32_t id = arena.memory_id;
    const uint64_t offset = t.offset;
    const uint64_t nbytes = t.nbytes;
    SharedBufferInfo* owner = nullptr;
    for (SharedBufferInfo& b : buffers) {
      if (b.memory_id == id && offset >= b.offset &&
          offset + nbytes <= b.offset + b.allocated_bytes) {
        owner = &b;
        break;
      }
    }
    if (owner == nullptr) {
      return Error(ErrorCode::InvalidProgram,
                   "%" PRIu64 " bytes at offset %" PRIu64 " of shared memory id %u lie in no "
                   "listed shared buffer (other methods would overwrite them)",
                   nbytes, offset, id);
    }
    owner->placements.push_back({std::string(method), t.value, id, offset, nbytes});
    if (!owner->has_layout && offset == owner->offset && nbytes == owner->actual_bytes) {
      owner->has_layout = true;
      owner->dtype = t.dtype;
      owner->sizes.assign(t.sizes.begin(), t.sizes.end());
    }

    // Initial values, exactly where method load would have copied them from.
    std::span<const uint8_t> initial;
    if (!t.external_key.empty()) {
      const std::string_view key = t.external_key;
      ETKIT_ASSIGN_OR_RETURN(NamedTensorData named, program.named_data(key));
      if (named.bytes.size() < nbytes) {
        return Error(ErrorCode::InvalidProgram, "external tensor '%.*s' has %zu bytes, needs %" PRIu64,
                     static_cast<int>(key.size()), key.data(), named.bytes.size(), nbytes);
      }
      initial = named.bytes.first(static_cast<size_t>(nbytes));
    } else if (t.data_buffer_idx > 0) {
      ETKIT_ASSIGN_OR_RETURN(initial,
                             program.mutable_data(t.data_buffer_idx, static_cast<size_t>(nbytes)));
    }
    if (initial.empty()) return Error();
    owner->has_initial_value = true;
    uint8_t* dst = arena.bytes.get() + offset;
    for (const Written& w : written) {
      if (w.memory_id != id) continue;
      const uint64_t lo = std::max(w.offset, offset);
      const uint64_t hi = std::min(w.offset + w.size, offset + nbytes);
      if (lo < hi && std::memcmp(dst + (lo - offset), initial.data() + (lo - offset), hi - lo) != 0) {
        return Error(ErrorCode::InvalidProgram,
                     "initial value of shared buffer '%s' differs from the one method '%.*s' gives",
                     owner->name.c_str(), static_cast<int>(w.method.size()), w.method.data());
      }
    }
    std::memcpy(dst, initial.data(), initial.size());
    written.push_back({id, offset, nbytes, method});
    initial_writes.push_back({&arena, offset, initial});
    return Error();
  }
};

SharedMemoryManager::SharedMemoryManager() : impl_(std::make_unique<Impl>()) {}
SharedMemoryManager::SharedMemoryManager(SharedMemoryManager&&) noexcept = default;
SharedMemoryManager& SharedMemoryManager::operator=(SharedMemoryManager&&) noexcept = default;
SharedMemoryManager::~SharedMemoryManager() = default;

Result<SharedMemoryManager> SharedMemoryManager::create(const Program& program) {
  SharedMemoryManager manager;
  // Methods are verified when first asked for: a damaged one is an error, not an absent one.
  const Result<MethodMeta> names_meta = program.method_meta(kSharedBufferNamesMethod);
  const Result<MethodMeta> plan_meta = program.method_meta(kSharedBufferPlanMethod);
  for (const Result<MethodMeta>* r : {&names_meta, &plan_meta}) {
    if (!r->ok() && r->error().code() != ErrorCode::NotFound) return r->error();
  }
  const bool has_names = names_meta.ok();
  const bool has_plan = plan_meta.ok();
  if (!has_names && !has_plan) return manager;
  if (has_names != has_plan) {
    const std::string_view have = has_names ? kSharedBufferNamesMethod : kSharedBufferPlanMethod;
    const std::string_view missing = has_names ? kSharedBufferPlanMethod : kSharedBufferNamesMethod;
    return Error(ErrorCode::InvalidProgram, "the program has method '%.*s' but no '%.*s'",
                 static_cast<int>(have.size()), have.data(), static_cast<int>(missing.size()),
                 missing.data());
  }
  Impl& m = *manager.impl_;
  ETKIT_ASSIGN_OR_RETURN(m.buffers, read_rows(program));
  ETKIT_ASSIGN_OR_RETURN(m.arenas, size_arenas(program, m.buffers));
  for (Arena& a : m.arenas) {
    // calloc: an arena is zero pages until touched.
    a.bytes.reset(static_cast<uint8_t*>(std::calloc(a.size == 0 ? 1 : a.size, 1)));
    if (a.bytes == nullptr) {
      return Error(ErrorCode::OutOfMemory, "cannot allocate the %" PRIu64
                   "-byte arena of shared memory id %u", a.size, a.memory_id);
    }
    m.ids.push_back(a.memory_id);
  }
  ETKIT_TRY(m.scan_methods(program));
  return manager;
}

void SharedMemoryManager::reset() {
  for (Arena& a : impl_->arenas) std::memset(a.bytes.get(), 0, static_cast<size_t>(a.size));
  for (const Impl::InitialWrite& w : impl_->initial_writes) {
    std::memcpy(w.arena->bytes.get() + w.offset, w.bytes.data(), w.bytes.size());
  }
}

uint64_t SharedMemoryManager::arena_bytes() const {
  uint64_t total = 0;
  for (const Arena& a : impl_->arenas) total += a.size;
  return total;
}

std::span<const SharedBufferInfo> SharedMemoryManager::buffers() const { return impl_->buffers; }

const SharedBufferInfo* SharedMemoryManager::find(std::string_view name) const {
  for (const SharedBufferInfo& b : impl_->buffers) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

std::span<uint8_t> SharedMemoryManager::arena(uint32_t memory_id) {
  Arena* a = impl_->find_arena(memory_id);
  if (a == nullptr) return {};
  return {a->bytes.get(), static_cast<size_t>(a->size)};
}

std::span<const uint8_t> SharedMemoryManager::arena(uint32_t memory_id) const {
  Arena* a = impl_->find_arena(memory_id);
  if (a == nullptr) return {};
  return {a->bytes.get(), static_cast<size_t>(a->size)};
}

std::span<const uint32_t> SharedMemoryManager::memory_ids() const { return impl_->ids; }

Result<std::span<const uint8_t>> SharedMemoryManager::buffer_bytes(std::string_view name) const {
  const SharedBufferInfo* b = find(name);
  if (b == nullptr) {
    return Error(ErrorCode::NotFound, "no shared buffer '%.*s'", static_cast<int>(name.size()),
                 name.data());
  }
  return arena(b->memory_id).subspan(static_cast<size_t>(b->offset),
                                     static_cast<size_t>(b->actual_bytes));
}

}  // namespace etkit
