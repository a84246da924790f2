// Scratch lifetimes of an EtkitFusedBackend plan (see fused_scratch.h).

#include "fused_scratch.h"

namespace etkit::fused {

Error ScratchPlanner::plan(const fb::FusedProgram& program, uint32_t num_steps, bool keep_all) {
  const uint32_t n = num_steps;
  last_read_ = allocator_.allocate_array<uint32_t>(n);
  blocks_ = allocator_.allocate_array<Block>(n);
  if (last_read_ == nullptr || blocks_ == nullptr) {
    return Error(ErrorCode::OutOfMemory, "the init allocator has no room for the scratch plan");
  }
  const auto* steps = program.steps();
  for (uint32_t s = 0; s < n; ++s) last_read_[s] = keep_all ? n : s;
  for (uint32_t r = 0; r < n && !keep_all; ++r) {
    const auto* operands = steps->Get(r)->operands();
    if (operands == nullptr) continue;
    for (const fb::Operand* o : *operands) {
      if (o->kind() == fb::OperandKind::Step && o->index() < r) last_read_[o->index()] = r;
    }
  }
  return Error();
}

void* ScratchPlanner::scratch_for(uint32_t s, size_t bytes) {
  Block* best = nullptr;
  for (uint32_t b = 0; b < num_blocks_; ++b) {
    Block& block = blocks_[b];
    if (block.busy_until >= s || block.bytes < bytes) continue;
    if (best == nullptr || block.bytes < best->bytes) best = &block;
  }
  if (best == nullptr) {
    void* data = allocator_.allocate(bytes, 64);
    if (data == nullptr) return nullptr;
    best = &blocks_[num_blocks_++];
    best->data = data;
    best->bytes = bytes;
  }
  best->busy_until = last_read_[s];
  return best->data;
}

}  // namespace etkit::fused
