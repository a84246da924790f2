#include "etkit/host/process_memory.h"

#include <sys/mman.h>
#include <sys/resource.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <climits>
#include <cstdint>
#include <cstdlib>

namespace etkit {

uint64_t peak_rss_bytes() {
  struct rusage usage {};
  if (::getrusage(RUSAGE_SELF, &usage) != 0 || usage.ru_maxrss <= 0) return 0;
  const uint64_t value = static_cast<uint64_t>(usage.ru_maxrss);
#if defined(__APPLE__)
  return value;
#else
  return value * 1024;
#endif
}

BatchHeap use_batch_heap() {
  BatchHeap heap;
#if defined(__GLIBC__)
  // The largest values glibc takes: no block is large enough to be mapped on its own (and
  // unmapped when freed), and no free top of the heap large enough to be trimmed. mallopt
  // returns 1 on success; ASan's and TSan's interceptors return 0 and change nothing.
  const int mapped = ::mallopt(M_MMAP_THRESHOLD, INT_MAX);
  const int trimmed = ::mallopt(M_TRIM_THRESHOLD, INT_MAX);
  heap.keeps_freed = mapped == 1 && trimmed == 1;
  if (!heap.keeps_freed) return heap;
  // The heap grows by kHugeHeapBytes now, untouched (so not resident), and the 2 MiB pages of
  // that span are marked for huge pages; freed, the block stays the top of the heap (never
  // trimmed), and the allocations that follow are carved from it.
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  void* block = std::malloc(kHugeHeapBytes);
  if (block == nullptr) return heap;
  const uintptr_t first = reinterpret_cast<uintptr_t>(block);
  const uintptr_t start = (first + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (first + kHugeHeapBytes) & ~(kHuge - 1);
  heap.huge_pages = ::madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE) == 0;
  std::free(block);
#endif
  return heap;
}

}  // namespace etkit
