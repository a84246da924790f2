#include "etkit/runtime/memory.h"

namespace etkit {

void* MemoryAllocator::allocate(size_t size, size_t alignment) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(base_);
  const uintptr_t start = (base + used_ + alignment - 1) & ~(uintptr_t{alignment} - 1);
  const size_t offset = start - base;
  if (offset > size_ || size > size_ - offset) return nullptr;
  used_ = offset + size;
  if (observer_ != nullptr) observer_->on_allocation(size);
  return base_ + offset;
}

Result<uint8_t*> PlannedMemory::locate(uint32_t memory_id, uint64_t offset, uint64_t size) const {
  if (memory_id == 0 || memory_id > buffers_.size()) {
    return Error(ErrorCode::InvalidProgram, "memory id %u is outside the %zu planned buffer(s)",
                 memory_id, buffers_.size());
  }
  const std::span<uint8_t> buffer = buffers_[memory_id - 1];
  if (offset > buffer.size() || size > buffer.size() - offset) {
    return Error(ErrorCode::InvalidProgram,
                 "planned range [%llu, +%llu) is outside buffer %u of %zu bytes",
                 static_cast<unsigned long long>(offset), static_cast<unsigned long long>(size),
                 memory_id, buffer.size());
  }
  return buffer.data() + offset;
}

Error PlannedMemory::set_preinitialized(uint32_t memory_id) {
  if (memory_id == 0 || memory_id > 64) {
    return Error(ErrorCode::InvalidArgument,
                 "memory id %u cannot be marked pre-initialised (ids 1..64 can)", memory_id);
  }
  preinitialized_ |= uint64_t{1} << (memory_id - 1);
  return Error();
}

}  // namespace etkit
