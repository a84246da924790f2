#include "etkit/host/process_memory.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "test_support.h"

// A sanitizer's allocator replaces glibc's: GCC says so with __SANITIZE_ADDRESS__, Clang with
// __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define ETKIT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ETKIT_ASAN 1
#endif
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

TEST_CASE("process memory: the batch heap keeps freed blocks and backs new ones by huge pages") {
  const BatchHeap heap = use_batch_heap();
#if defined(__GLIBC__) && !defined(ETKIT_ASAN)
  REQUIRE(heap.keeps_freed);
  // 64 MiB is past glibc's largest default threshold (32 MiB): without the policy it is mapped
  // on its own and unmapped when freed, so the heap (`arena`) would not hold it.
  constexpr size_t kBytes = size_t{64} << 20;
  auto* block = static_cast<unsigned char*>(std::malloc(kBytes));
  REQUIRE(block != nullptr);
  std::memset(block, 1, kBytes);
  CHECK(block[kBytes - 1] == 1);
  // Carved from the marked span: its mapping asks for huge pages ("hg") when the kernel took
  // the advice (it does wherever it was built with transparent huge pages).
  const bool kernel_has_thp = std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good();
  CHECK(heap.huge_pages == kernel_has_thp);
  if (heap.huge_pages) {
    const std::string flags = testing::mapping_field(block + kBytes / 2, "VmFlags:");
    CHECK(flags.find(" hg") != std::string::npos);
  }
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
  // Not glibc, or a sanitizer's allocator (its mallopt changes nothing): nothing is arranged.
  CHECK_FALSE(heap.keeps_freed);
  CHECK_FALSE(heap.huge_pages);
#endif
}

}  // namespace
}  // namespace etkit
