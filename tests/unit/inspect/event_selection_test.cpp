#include "etkit/inspect/event_selection.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "inspect_test_util.h"
#include "trace_test_dumps.h"

namespace etkit::inspect {
namespace {

using test::build_ok;
using test::execution;
using test::profile;

TEST_CASE("event selection: selection by method, block and name") {
  ETDump dump;
  RunBlock load;
  load.name = "forward:load";
  load.events.push_back(profile("Method::init", -1, 0, 0, 5));
  dump.blocks = {load, execution("forward", 10), execution("other", 30)};
  const Trace t = build_ok(dump);
  EventSelection s;
  CHECK(select_events(t, s)->size() == 9);
  s.include_load = false;
  CHECK(select_events(t, s)->size() == 8);
  s.method = "other";
  CHECK(select_events(t, s)->size() == 4);
  s.method.clear();
  s.block = 1;
  CHECK(*select_events(t, s) == std::vector<size_t>{1, 2, 3, 4});
  s.block = -1;
  s.name_regex = "OPERATOR_.*";
  CHECK(select_events(t, s)->size() == 4);
  s.name_regex = "OPERATOR";  // full match only
  CHECK(select_events(t, s)->empty());
  s.name_regex = "(";
  Result<std::vector<size_t>> r = select_events(t, s);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::InvalidArgument);
  CHECK(std::string(r.error().message()).rfind("bad --name regex '(': ", 0) == 0);
}

}  // namespace
}  // namespace etkit::inspect

namespace etkit::inspect {
namespace {

using test::build_ok;
using test::execution;

// forward:load, 2 warm-up executions, 4 measured ones; warm-up listed in the metadata.
Trace warmed_up_trace() {
  ETDump dump;
  RunBlock load;
  load.name = "forward:load";
  dump.blocks = {load};
  for (int i = 0; i < 6; ++i) dump.blocks.push_back(execution("forward", 100 * uint64_t(i)));
  dump.metadata["warmup_blocks"] = "1:3";
  return build_ok(dump);
}

// The blocks `selection` selects, by index.
std::vector<size_t> blocks_of(const Trace& t, const EventSelection& s) {
  std::vector<size_t> out;
  for (size_t b = 0; b < t.blocks.size(); ++b) {
    if (block_selected(t, b, s)) out.push_back(b);
  }
  return out;
}

TEST_CASE("event selection: warm-up is left out unless included, iterations count measured ones") {
  const Trace t = warmed_up_trace();
  // Warm-up blocks are numbered apart: iteration 0 is the first measured execution.
  CHECK(t.blocks[1].warmup);
  CHECK(t.blocks[1].iteration == 0);
  CHECK(t.blocks[2].iteration == 1);
  CHECK_FALSE(t.blocks[3].warmup);
  CHECK(t.blocks[3].iteration == 0);
  CHECK(t.blocks[6].iteration == 3);
  CHECK(block_kind(t.blocks[0]) == "load");
  CHECK(block_kind(t.blocks[1]) == "warmup");
  CHECK(block_kind(t.blocks[3]) == "execute");

  EventSelection s;
  CHECK(blocks_of(t, s) == std::vector<size_t>{0, 3, 4, 5, 6});
  s.include_warmup = true;
  CHECK(blocks_of(t, s) == std::vector<size_t>{0, 1, 2, 3, 4, 5, 6});
  s.include_warmup = false;
  s.iterations = *parse_iteration_range("2:");
  CHECK(blocks_of(t, s) == std::vector<size_t>{0, 5, 6});
  s.include_load = false;
  s.iterations = *parse_iteration_range("1:3");
  CHECK(blocks_of(t, s) == std::vector<size_t>{4, 5});
  // A block asked for by index is selected whatever its kind.
  s.block = 1;
  CHECK(blocks_of(t, s) == std::vector<size_t>{1});
  // Each execution block has 4 profile events.
  s = EventSelection{};
  s.include_load = false;
  CHECK(select_events(t, s)->size() == 16);
}

TEST_CASE("event selection: statistics leave out incomplete blocks") {
  ETDump dump;
  for (int i = 0; i < 4; ++i) dump.blocks.push_back(execution("forward", 100 * uint64_t(i)));
  dump.metadata["dropped_events"] = "7";
  dump.metadata["incomplete_from"] = "2";
  const Trace t = build_ok(dump);
  CHECK(t.dropped_events == 7);
  CHECK_FALSE(t.blocks[1].incomplete);
  CHECK(t.blocks[2].incomplete);
  CHECK(t.blocks[3].incomplete);
  EventSelection s;
  CHECK(blocks_of(t, s) == std::vector<size_t>{0, 1, 2, 3});
  s.complete_only = true;
  CHECK(blocks_of(t, s) == std::vector<size_t>{0, 1});
  const std::vector<std::string> w = trace_warnings(t);
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "7 events were dropped (the trace memory was full); blocks 2 on may be "
                "incomplete: 2 executions are left out of statistics");
}

TEST_CASE("event selection: values of left-out blocks are removed") {
  Trace t = warmed_up_trace();
  for (uint32_t b = 0; b < t.blocks.size(); ++b) {
    TraceValue v;
    v.block = b;
    t.values.push_back(v);
  }
  keep_selected_values(t, EventSelection{});
  REQUIRE(t.values.size() == 5);
  CHECK(t.values[0].block == 0);
  CHECK(t.values[1].block == 3);
}

TEST_CASE("event selection: iteration ranges are Python-like and half-open") {
  CHECK(parse_iteration_range("10:")->begin == 10);
  CHECK(parse_iteration_range("10:")->end == UINT64_MAX);
  CHECK(parse_iteration_range(":5")->begin == 0);
  CHECK(parse_iteration_range(":5")->end == 5);
  CHECK(parse_iteration_range("0:5")->contains(4));
  CHECK_FALSE(parse_iteration_range("0:5")->contains(5));
  CHECK(parse_iteration_range(":")->all());
  CHECK(parse_iteration_range("3")->contains(3));
  CHECK_FALSE(parse_iteration_range("3")->contains(4));
  CHECK(parse_iteration_range("2:2")->begin == 2);  // empty, as in Python
  for (const char* bad : {"", "a", "-1:", "1:x", "5:2", "1:2:3", " 1"}) {
    Result<IterationRange> r = parse_iteration_range(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(std::string(r.error().message()).rfind(std::string("bad --iterations '") + bad + "'", 0) == 0);
  }
  CHECK(std::string(parse_iteration_range("5:2").error().message()) ==
        "bad --iterations '5:2': the end is before the start (ranges are half-open, [A, B))");
}

TEST_CASE("event selection: malformed etkit metadata is an error naming the key") {
  ETDump dump;
  dump.blocks = {execution("forward", 0)};
  dump.metadata["warmup_blocks"] = "0:5";  // past the one block
  Result<Trace> r = build_trace(dump, "x.etdump");
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.error().message()) ==
        "x.etdump: metadata warmup_blocks '0:5' is not within the dump's blocks");
  dump.metadata["warmup_blocks"] = "0:1";
  dump.metadata["interrupted"] = "yes";
  r = build_trace(dump, "x.etdump");
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.error().message()) == "x.etdump: metadata interrupted 'yes' is not 1");
  dump.metadata["interrupted"] = "1";
  CHECK(build_ok(dump).interrupted);
}

}  // namespace
}  // namespace etkit::inspect
