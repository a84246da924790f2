#include "etkit/host/process_memory.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace etkit {
namespace {

TEST_CASE("process memory: the peak RSS covers memory the process touched, and never falls") {
  const uint64_t before = peak_rss_bytes();
  REQUIRE(before > 0);
  constexpr size_t kBytes = size_t{64} << 20;
  std::unique_ptr<unsigned char[]> block(new unsigned char[kBytes]);
  std::memset(block.get(), 1, kBytes);  // touched: resident
  const uint64_t after = peak_rss_bytes();
  CHECK(after >= kBytes);
  CHECK(after >= before);
  CHECK(block[kBytes - 1] == 1);
  block.reset();
  CHECK(peak_rss_bytes() >= after);  // a peak, not the current size
}

TEST_CASE("process memory: after keep_freed_memory, a large block freed stays for the next one") {
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
  REQUIRE(keep_freed_memory());
  // 64 MiB is past glibc's largest default threshold (32 MiB): without the policy it is mapped
  // on its own and unmapped when freed, so the heap (`arena`) would not hold it.
  constexpr size_t kBytes = size_t{64} << 20;
  auto* block = static_cast<unsigned char*>(std::malloc(kBytes));
  REQUIRE(block != nullptr);
  std::memset(block, 1, kBytes);
  CHECK(block[kBytes - 1] == 1);
  std::free(block);
  const struct mallinfo2 freed = ::mallinfo2();
  CHECK(freed.hblkhd < kBytes);   // not a mapping of its own
  CHECK(freed.arena >= kBytes);   // the heap kept it...
  CHECK(freed.fordblks >= kBytes);  // ...free, for the next block
  auto* again = static_cast<unsigned char*>(std::malloc(kBytes));
  REQUIRE(again != nullptr);
  again[0] = 2;
  CHECK(again[0] == 2);
  CHECK(::mallinfo2().arena == freed.arena);  // served from it: the heap did not grow
  std::free(again);
#else
  // Not glibc, or a sanitizer's allocator (its mallopt changes nothing): the policy is refused.
  CHECK_FALSE(keep_freed_memory());
#endif
}

}  // namespace
}  // namespace etkit
