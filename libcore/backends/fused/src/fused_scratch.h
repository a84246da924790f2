#pragma once

// Scratch memory of an EtkitFusedBackend plan (private to the backend): where each step writes
// its output. A step's scratch output is needed until the last step that reads it has run (and,
// with after-the-fact timing, until the outputs are logged after the last step: then nothing is
// reused). A block whose last reader ran before step t can take t's output. Blocks are never
// split: first fit by size among the free ones, else a new one. Everything comes from the init
// allocator, once; execute allocates nothing.

#include <cstddef>
#include <cstdint>

#include "etkit/formats/fused_delegate_generated.h"
#include "etkit/runtime/memory.h"
#include "etkit/runtime/result.h"

namespace etkit::fused {

namespace fb = ::etkit_fused;

class ScratchPlanner {
 public:
  explicit ScratchPlanner(MemoryAllocator& allocator) : allocator_(allocator) {}

  /// Finds each step's last reader among `program`'s steps (all `num_steps` of them; with
  /// `keep_all`, every output lives to the end). Operands are not checked here: only valid step
  /// references count. Errors: `OutOfMemory`.
  Error plan(const fb::FusedProgram& program, uint32_t num_steps, bool keep_all);

  /// Memory for step `s`'s output of `bytes`, 64-byte aligned: a free block that fits, else a new
  /// one. Steps must ask in order. Null when the allocator is full.
  void* scratch_for(uint32_t s, size_t bytes);

 private:
  struct Block {
    void* data = nullptr;
    size_t bytes = 0;
    uint32_t busy_until = 0;  // the last step that reads what it holds
  };
  MemoryAllocator& allocator_;
  uint32_t* last_read_ = nullptr;
  Block* blocks_ = nullptr;
  uint32_t num_blocks_ = 0;
};

}  // namespace etkit::fused
