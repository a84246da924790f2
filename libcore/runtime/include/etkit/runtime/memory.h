#pragma once

// Caller-owned memory for the runtime: a bump allocator, the planned buffers of a memory plan,
// and the `MemoryManager` that bundles them for a method.
//
// The runtime never allocates from the heap: everything a method needs comes from buffers the
// caller hands in. When a buffer is too small the call fails with `ErrorCode::OutOfMemory`.

#include <cstddef>
#include <cstdint>
#include <span>

#include "etkit/runtime/result.h"

namespace etkit {

/// Told of every allocation an allocator makes. The method attaches one that reports its temp
/// allocator's allocations to the tracer; the allocator knows nothing else about tracing.
class AllocationObserver {
 public:
  /// Called after `size` bytes were allocated. Must not allocate from the same allocator.
  virtual void on_allocation(size_t size) = 0;

 protected:
  ~AllocationObserver() = default;
};

/// A bump allocator over a caller-owned buffer. Not thread-safe.
class MemoryAllocator {
 public:
  static constexpr size_t kDefaultAlignment = alignof(std::max_align_t);

  MemoryAllocator() = default;
  /// Allocates from `buffer`, which must outlive the allocator.
  explicit MemoryAllocator(std::span<uint8_t> buffer) : base_(buffer.data()), size_(buffer.size()) {}

  /// Returns `size` bytes aligned to `alignment` (a power of two), or null when full.
  void* allocate(size_t size, size_t alignment = kDefaultAlignment);

  /// Allocates an array of `n` default-constructed `T`; null when full.
  template <typename T>
  T* allocate_array(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) return nullptr;
    void* p = allocate(n * sizeof(T), alignof(T));
    if (p == nullptr) return nullptr;
    T* out = static_cast<T*>(p);
    for (size_t i = 0; i < n; ++i) new (&out[i]) T();
    return out;
  }

  /// Forgets every allocation (the memory is reused).
  void reset() { used_ = 0; }

  /// Reports every later allocation to `observer`, which must outlive the allocator or be
  /// replaced first; null stops reporting.
  void set_observer(AllocationObserver* observer) { observer_ = observer; }
  size_t used() const { return used_; }
  size_t capacity() const { return size_; }

 private:
  uint8_t* base_ = nullptr;
  size_t size_ = 0;
  size_t used_ = 0;
  AllocationObserver* observer_ = nullptr;
};

/// The planned buffers of a memory plan: buffer k serves memory id k + 1.
class PlannedMemory {
 public:
  PlannedMemory() = default;
  /// `buffers` (and the memory they point to) must outlive this object.
  explicit PlannedMemory(std::span<const std::span<uint8_t>> buffers) : buffers_(buffers) {}

  size_t num_buffers() const { return buffers_.size(); }
  /// Address of `size` bytes at `offset` in the buffer of `memory_id` (1-based). Errors:
  /// `InvalidProgram` if the id or the range is outside the buffers.
  Result<uint8_t*> locate(uint32_t memory_id, uint64_t offset, uint64_t size) const;

  /// Marks the buffer of `memory_id` as already holding the initial values of the tensors
  /// planned in it (a shared arena, written once by its owner, see shared_memory.h): method load
  /// then binds those tensors without copying their initial values again. Ids 1..64 can be
  /// marked. Errors: `InvalidArgument` for another id.
  Error set_preinitialized(uint32_t memory_id);
  bool is_preinitialized(uint32_t memory_id) const {
    return memory_id >= 1 && memory_id <= 64 && (preinitialized_ >> (memory_id - 1) & 1) != 0;
  }

 private:
  std::span<const std::span<uint8_t>> buffers_;
  uint64_t preinitialized_ = 0;  ///< Bit k: memory id k + 1.
};

/// What a method needs to load and run: an allocator for its own structures (values, tensor
/// metadata, instruction tables), its planned buffers, and a temp allocator kernels may use during
/// one instruction (reset after each).
struct MemoryManager {
  MemoryAllocator* method_allocator = nullptr;
  PlannedMemory* planned_memory = nullptr;
  MemoryAllocator* temp_allocator = nullptr;
};

}  // namespace etkit
