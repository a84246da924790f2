#include "etkit/devtools/event_filter.h"

#include <doctest/doctest.h>

#include <string>

namespace etkit {
namespace {

bool dropped(EventFilter& f, std::string_view name, int64_t index) {
  Result<bool> r = f.filter(name, index);
  REQUIRE(r.ok());
  return *r;
}

TEST_CASE("event filter: no rules keeps everything") {
  EventFilter f;
  CHECK(f.empty());
  CHECK_FALSE(dropped(f, "aten::add.out", 3));
  CHECK_FALSE(dropped(f, "", 3));
  CHECK_FALSE(dropped(f, "fused #1", -1));
}

TEST_CASE("event filter: names match in full, not by substring") {
  EventFilter f;
  REQUIRE(f.add_name_pattern("aten::add.*", true).ok());
  CHECK_FALSE(dropped(f, "aten::add.out", 0));
  CHECK(dropped(f, "aten::addmm.out", 0) == false);  // "add.*" also matches "addmm.out"
  CHECK(dropped(f, "xaten::add.out", 0));
  CHECK(dropped(f, "aten::mul.out", 0));
  EventFilter g;
  REQUIRE(g.add_name_pattern("add", true).ok());
  CHECK(dropped(g, "aten::add.out", 0));
}

TEST_CASE("event filter: ranges are half-open") {
  EventFilter f;
  REQUIRE(f.add_range(2, 5, true).ok());
  CHECK(dropped(f, "", 1));
  CHECK_FALSE(dropped(f, "", 2));
  CHECK_FALSE(dropped(f, "", 4));
  CHECK(dropped(f, "", 5));
}

TEST_CASE("event filter: keep rules select, drop rules remove, each on its own attribute") {
  EventFilter f;
  REQUIRE(f.add_range(0, 100, true).ok());
  REQUIRE(f.add_range(7, 13, false).ok());
  REQUIRE(f.add_name_pattern("fused.*", true).ok());
  REQUIRE(f.add_name_pattern(".*#2", false).ok());
  CHECK_FALSE(dropped(f, "", 3));              // kept by range
  CHECK(dropped(f, "", 7));                    // kept by range, dropped by range
  CHECK(dropped(f, "", 200));                  // no keep rule matches
  CHECK_FALSE(dropped(f, "fused #1", -1));     // kept by name
  CHECK(dropped(f, "fused #2", -1));           // kept by name, dropped by name
  CHECK(dropped(f, "other", -1));              // a name without index: no keep rule matches
  CHECK_FALSE(dropped(f, "aten::mul.out", 3)); // the range keeps it; names only add
  CHECK(dropped(f, "fused #1", 10));           // the drop range still applies
}

TEST_CASE("event filter: a drop rule alone removes only what it matches") {
  EventFilter f;
  REQUIRE(f.add_name_pattern("aten::.*", false).ok());
  CHECK(dropped(f, "aten::add.out", 0));
  CHECK_FALSE(dropped(f, "XnnpackBackend", 1));
  CHECK_FALSE(dropped(f, "", 4));
}

TEST_CASE("event filter: cached decisions agree with fresh ones") {
  EventFilter f;
  REQUIRE(f.add_name_pattern("a.*", true).ok());
  for (int round = 0; round < 3; ++round) {
    CHECK_FALSE(dropped(f, "abc", -1));
    CHECK(dropped(f, "bcd", -1));
    // A different string at a reused address must not be confused with the cached one.
    std::string s = round % 2 == 0 ? "axe" : "box";
    CHECK(dropped(f, s, -1) == (round % 2 != 0));
  }
  const std::string long_name(300, 'a');
  CHECK_FALSE(dropped(f, long_name, -1));  // longer than the cache holds: matched anew
  REQUIRE(f.add_name_pattern("abc", false).ok());  // new rules invalidate the cache
  CHECK(dropped(f, "abc", -1));
}

TEST_CASE("event filter: bad patterns and ranges are refused when added") {
  EventFilter f;
  Error e = f.add_name_pattern("(unclosed", true);
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(std::string(e.message()).find("bad regular expression '(unclosed'") == 0);
  CHECK(f.add_range(5, 5, true).code() == ErrorCode::InvalidArgument);
  CHECK(f.add_range(-1, 5, false).code() == ErrorCode::InvalidArgument);
  CHECK(f.empty());
}

TEST_CASE("event filter: parse_range") {
  REQUIRE(parse_range("3:9").ok());
  CHECK(parse_range("3:9")->first == 3);
  CHECK(parse_range("3:9")->second == 9);
  for (const char* bad : {"3", "9:3", "3:3", ":4", "4:", "a:b", "-1:3", "1:2:3", "1 :2"}) {
    CAPTURE(std::string(bad));
    CHECK_FALSE(parse_range(bad).ok());
  }
}

}  // namespace
}  // namespace etkit

namespace etkit {
namespace {

TEST_CASE("event filter: an operator matches as tables print it and fully qualified") {
  EventFilter f;
  REQUIRE(f.add_name_pattern("addmm.out", true).ok());
  CHECK_FALSE(dropped(f, "aten::addmm.out", 4));
  CHECK(dropped(f, "aten::add.out", 4));
  CHECK(dropped(f, "aten::xaddmm.out", 4));
  EventFilter g;
  REQUIRE(g.add_name_pattern("aten::addmm.out", true).ok());
  CHECK_FALSE(dropped(g, "aten::addmm.out", 4));
  EventFilter d;
  REQUIRE(d.add_name_pattern("relu.out", false).ok());
  CHECK(dropped(d, "aten::relu.out", 1));
  CHECK_FALSE(dropped(d, "aten::gelu.out", 1));
  // Names without a namespace match whole only.
  CHECK(*name_pattern_matches("XnnpackBackend", "XnnpackBackend"));
  CHECK_FALSE(*name_pattern_matches("Xnnpack", "XnnpackBackend"));
  CHECK(*name_pattern_matches("add\\.out", "aten::add.out"));
  CHECK_FALSE(*name_pattern_matches("aten", "aten::add.out"));
  CHECK(name_pattern_matches("(", "x").error().code() == ErrorCode::InvalidArgument);
}

}  // namespace
}  // namespace etkit
