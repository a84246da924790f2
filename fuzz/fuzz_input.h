#pragma once

// The bytes libFuzzer hands a target, copied into memory aligned as etkit's loaders require
// (FlatBuffers files are read in place; BufferDataLoader wants 16-byte alignment, .pte
// segments 32). One copy per input; the fuzzers are not a hot path.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <span>

namespace etkit::fuzz {

class AlignedInput {
 public:
  AlignedInput(const uint8_t* data, size_t size)
      : size_(size), bytes_(static_cast<uint8_t*>(::operator new(size == 0 ? 1 : size,
                                                                 std::align_val_t{64}))) {
    if (size != 0) std::memcpy(bytes_.get(), data, size);
  }
  std::span<const uint8_t> span() const { return {bytes_.get(), size_}; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { ::operator delete(p, std::align_val_t{64}); }
  };
  size_t size_;
  std::unique_ptr<uint8_t, Free> bytes_;
};

}  // namespace etkit::fuzz
