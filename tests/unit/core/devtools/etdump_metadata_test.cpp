#include "etkit/devtools/etdump_metadata.h"

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

namespace etkit {
namespace {

TEST_CASE("etdump metadata: block ranges round-trip and reject other text") {
  using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;
  CHECK(format_block_ranges({{1, 6}}) == "1:6");
  CHECK(format_block_ranges({{1, 3}, {4, 5}}) == "1:3,4:5");
  Ranges r;
  REQUIRE(parse_block_ranges("1:3,4:5", &r));
  CHECK(r == Ranges{{1, 3}, {4, 5}});
  REQUIRE(parse_block_ranges("0:18446744073709551615", &r));
  CHECK(r == Ranges{{0, UINT64_MAX}});
  for (const char* bad : {"", "1", "1:", ":3", "3:3", "4:2", "1:3,", ",1:3", "1:3;4:5", "a:b",
                          "-1:2", "1:2:3", "18446744073709551616:1"}) {
    CHECK_MESSAGE(!parse_block_ranges(bad, &r), bad);
  }
}

}  // namespace
}  // namespace etkit
