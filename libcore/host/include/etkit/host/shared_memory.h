#pragma once

// `SharedMemoryManager`: state shared by several methods of one program (issue #6; the
// multi-entrypoint pattern of execu-tools; DESIGN.md section 4).
//
// A program with persistent buffers plans all of them into one memory id (2, "the state arena"),
// each at the same offset in every method that uses it, and describes them in two constant
// methods: `et_get_shared_buffer_names` (uint8 [n, max_len], NUL-padded names) and
// `et_get_shared_buffer_memory_plan` (int64 [n, 6]: mem_id, mem_obj_id, offset,
// allocated_bytes, actual_bytes, numel). The manager reads those tables through the public
// Method API, checks them against every method's plan, allocates one zero-filled arena per
// shared memory id (sized as the methods plan it; they must agree), writes initial values into
// it once, and lends the arena to every method loaded through it (`RunnerOptions::shared_memory`),
// marking it pre-initialised so that method load never copies initial values again.
//
// A program without the two methods has no shared state: the manager is empty and every method
// gets its own memory. Host code: it allocates when created (never while methods run) and
// returns errors as values.
//
// Hazards (documented, not prevented): a method that only reads a buffer, run before any method
// wrote it, sees the buffer's initial value (zeros when it has none); a method's outputs planned
// in the arena are overwritten by the next method that writes that buffer. Not thread-safe.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/host/runner.h"
#include "etkit/host/shared_buffer_tables.h"  // the discovery method names
#include "etkit/runtime/program.h"
#include "etkit/runtime/result.h"
#include "etkit/runtime/scalar_type.h"

namespace etkit {

/// One method's tensor inside a shared buffer.
struct SharedBufferPlacement {
  std::string method;
  uint32_t value = 0;      ///< Index in the method's value table.
  uint32_t memory_id = 0;
  uint64_t offset = 0;     ///< Byte offset in the memory id.
  uint64_t bytes = 0;      ///< The tensor's bytes (upper bound for dynamic shapes).
};

/// One shared buffer: a row of the program's tables, and what the methods say about it.
struct SharedBufferInfo {
  std::string name;
  uint32_t memory_id = 0;
  int64_t mem_obj_id = 0;
  uint64_t offset = 0;
  uint64_t allocated_bytes = 0;
  uint64_t actual_bytes = 0;
  uint64_t numel = 0;
  /// dtype and sizes are known when a method plans a tensor of `actual_bytes` at `offset`.
  bool has_layout = false;
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> sizes;
  /// True if some method carries initial values for (part of) the buffer.
  bool has_initial_value = false;
  /// Every method's tensors inside the buffer, in file order of methods, then value order.
  std::vector<SharedBufferPlacement> placements;
};

class SharedMemoryManager final : public SharedArenas {
 public:
  /// Reads and checks the shared-buffer tables of `program` (which must outlive the manager),
  /// allocates the arenas and writes initial values. Errors (`InvalidProgram`, naming the method
  /// or buffer): one discovery method without the other; a discovery method with inputs,
  /// instructions, or an output that is not one constant tensor of the expected dtype and shape;
  /// rows that disagree in number, a negative field, an empty or duplicate name, a buffer whose
  /// actual bytes exceed its allocated bytes, buffers that overlap, a memory id no method plans;
  /// methods that plan a shared memory id with different sizes; a buffer that does not fit the
  /// memory id of a method that plans it; a tensor in a shared memory id that lies in no listed
  /// buffer (sharing the id would let methods overwrite it); two methods giving different initial
  /// values for the same bytes. `OutOfMemory` if an arena cannot be allocated.
  static Result<SharedMemoryManager> create(const Program& program);

  SharedMemoryManager();
  SharedMemoryManager(SharedMemoryManager&&) noexcept;
  SharedMemoryManager& operator=(SharedMemoryManager&&) noexcept;
  ~SharedMemoryManager();

  /// The shared buffers, in table order (empty: the program shares nothing).
  std::span<const SharedBufferInfo> buffers() const;
  const SharedBufferInfo* find(std::string_view name) const;

  /// The arena backing `memory_id`, or an empty span if that id is not shared. Its address and
  /// size stay the same for the manager's lifetime (also across moves).
  std::span<uint8_t> arena(uint32_t memory_id) override;
  std::span<const uint8_t> arena(uint32_t memory_id) const;
  /// The shared memory ids, ascending.
  std::span<const uint32_t> memory_ids() const override;

  /// The current bytes of buffer `name` (`actual_bytes` at its offset). Errors: `NotFound`.
  Result<std::span<const uint8_t>> buffer_bytes(std::string_view name) const;

  /// Puts every arena back as `create` left it: zero, then the initial values the methods give
  /// (from the program, which must still be alive). Arenas keep their addresses, so loaded
  /// methods stay bound. Allocates nothing. Not thread-safe with a running method.
  void reset();
  /// Total bytes of the arenas.
  uint64_t arena_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace etkit
