#include "etkit/host/process_memory.h"

#include <sys/resource.h>

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

}  // namespace etkit
