#include "etkit/devtools/clock.h"

#include <chrono>

namespace etkit {
namespace {
int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

SteadyClock::SteadyClock() : origin_ns_(steady_ns()) {}

uint64_t SteadyClock::now() { return static_cast<uint64_t>(steady_ns() - origin_ns_); }

}  // namespace etkit
