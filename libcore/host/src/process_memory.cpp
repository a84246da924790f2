#include "etkit/host/process_memory.h"

#include <sys/resource.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <climits>

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

bool keep_freed_memory() {
#if defined(__GLIBC__)
  // The largest values glibc takes: no block is large enough to be mapped on its own (and
  // unmapped when freed), and no free top of the heap large enough to be trimmed. mallopt
  // returns 1 on success; ASan's and TSan's interceptors return 0 and change nothing.
  const int mapped = ::mallopt(M_MMAP_THRESHOLD, INT_MAX);
  const int trimmed = ::mallopt(M_TRIM_THRESHOLD, INT_MAX);
  return mapped == 1 && trimmed == 1;
#else
  return false;
#endif
}

}  // namespace etkit
