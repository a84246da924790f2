#include "etkit/runtime/memory.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace etkit {
namespace {

TEST_CASE("memory allocator: aligned bump allocation until full, then null") {
  alignas(64) uint8_t buffer[128];
  MemoryAllocator alloc(buffer);
  void* a = alloc.allocate(3, 1);
  CHECK(a == buffer);
  void* b = alloc.allocate(8, 16);
  CHECK(reinterpret_cast<uintptr_t>(b) % 16 == 0);
  CHECK(b == buffer + 16);
  CHECK(alloc.used() == 24);
  CHECK(alloc.allocate(200) == nullptr);
  CHECK(alloc.used() == 24);  // A failed allocation takes nothing.
  CHECK(alloc.allocate(104, 1) != nullptr);
  CHECK(alloc.allocate(1, 1) == nullptr);
  alloc.reset();
  CHECK(alloc.used() == 0);
  CHECK(alloc.allocate(128, 1) == buffer);
}

TEST_CASE("memory allocator: arrays are value-initialised and overflow-checked") {
  alignas(16) uint8_t buffer[64];
  std::fill(std::begin(buffer), std::end(buffer), 0xff);
  MemoryAllocator alloc(buffer);
  int* ints = alloc.allocate_array<int>(4);
  REQUIRE(ints != nullptr);
  CHECK(ints[0] == 0);
  CHECK(ints[3] == 0);
  CHECK(alloc.allocate_array<uint64_t>(SIZE_MAX / 4) == nullptr);
}

TEST_CASE("planned memory: ids are 1-based and ranges must fit their buffer") {
  std::vector<uint8_t> b1(64);
  std::vector<uint8_t> b2(16);
  std::vector<std::span<uint8_t>> spans{b1, b2};
  PlannedMemory planned(spans);
  CHECK(planned.num_buffers() == 2);
  REQUIRE(planned.locate(1, 16, 48).ok());
  CHECK(*planned.locate(1, 16, 48) == b1.data() + 16);
  CHECK(*planned.locate(2, 0, 16) == b2.data());
  Result<uint8_t*> past = planned.locate(1, 16, 49);
  CHECK(past.error().code() == ErrorCode::InvalidProgram);
  CHECK(std::string(past.error().message()) == "planned range [16, +49) is outside buffer 1 of 64 bytes");
  CHECK_FALSE(planned.locate(0, 0, 1).ok());
  CHECK_FALSE(planned.locate(3, 0, 1).ok());
  CHECK_FALSE(planned.locate(1, UINT64_MAX, 2).ok());
}

}  // namespace
}  // namespace etkit
