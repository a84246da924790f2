#include "etkit/host/process_memory.h"

#include <doctest/doctest.h>

#include <cstring>
#include <memory>

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

}  // namespace
}  // namespace etkit
