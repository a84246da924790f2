#include "etkit/inspect/folded_stacks.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "profile_events.h"
#include "streamed_dumps.h"

namespace etkit::inspect {
namespace {

using testing::profile_event;

TEST_CASE("folded stacks: method, then enclosing events; self time summed over iterations") {
  ETDump dump;
  RunBlock b;
  b.name = "forward";
  Event d = profile_event("", 1, 1500, 2250);
  d.profile.delegate_debug_id_str = "conv #1";  // a space: written `_`
  b.events.push_back(d);
  b.events.push_back(profile_event("DELEGATE_CALL", 1, 1000, 3000));
  b.events.push_back(profile_event("Method::execute", -1, 500, 4000));
  dump.blocks = {b, b};  // two iterations of forward
  dump.metadata["ticks_per_second"] = "1000000000";
  Result<Trace> t = build_trace(dump, "d.etdump");
  REQUIRE(t.ok());
  std::vector<size_t> all;
  for (size_t i = 0; i < t->events.size(); ++i) all.push_back(i);
  // DELEGATE_CALL at instruction 1 is `delegate@1` (trace.h names its operator `delegate`).
  // By hand: conv 750 ns; DELEGATE_CALL 2000 - 750 = 1250; Method::execute 3500 - 2000 = 1500;
  // each twice.
  CHECK(folded_stacks(*t, all) ==
        "forward;Method::execute 3000\n"
        "forward;Method::execute;delegate@1 2500\n"
        "forward;Method::execute;delegate@1;conv_#1 1500\n");
  // Only the delegate event selected: its stack still names its enclosing events.
  for (size_t i = 0; i < t->events.size(); ++i) {
    if (t->events[i].delegate) {
      CHECK(folded_stacks(*t, {i}) == "forward;Method::execute;delegate@1;conv_#1 750\n");
      break;
    }
  }
  CHECK(folded_stacks(*t, {}).empty());
}

// The stacks by walking each selected event's parents: what the frames the writer shares
// between consecutive events must add up to.
std::string walked_stacks(const Trace& t, const std::vector<size_t>& selected) {
  std::map<std::string, double> sums;
  for (size_t i : selected) {
    std::vector<std::string> frames;
    for (int32_t p = static_cast<int32_t>(i); p >= 0; p = t.events[static_cast<size_t>(p)].parent) {
      const TraceEvent& f = t.events[static_cast<size_t>(p)];
      frames.push_back(f.instruction >= 0 && !f.op.empty() && f.name == "OPERATOR_CALL"
                           ? std::string(f.op) + "@" + std::to_string(f.instruction)
                           : std::string(f.name));
    }
    const TraceBlock& b = t.blocks[t.events[i].block];
    std::string stack = b.method + (b.load ? ":load" : "");
    for (size_t k = frames.size(); k-- > 0;) stack += ";" + frames[k];
    sums[stack] += t.events[i].self_ns;
  }
  std::string out;
  for (const auto& [stack, ns] : sums) {
    if (ns >= 0.5) out += stack + " " + std::to_string(static_cast<uint64_t>(ns + 0.5)) + "\n";
  }
  return out;
}

TEST_CASE("folded stacks: deep and shallow events in turn, any subset, several blocks") {
  ETDump dump;
  RunBlock load;
  load.name = "forward:load";
  load.events.push_back(profile_event("Program::load_method", -1, 0, 100));
  RunBlock b;
  b.name = "forward";
  // Method::execute [100, 1000] holds A [110, 500] (holding B [120, 200] and C [210, 480],
  // which holds D [220, 300]) and E [510, 990] (holding F [520, 530]); file order is post-order.
  b.events = {profile_event("B", -1, 120, 200),
              profile_event("D", -1, 220, 300),
              profile_event("C", -1, 210, 480),
              profile_event("A", -1, 110, 500),
              profile_event("F", -1, 520, 530),
              profile_event("E", -1, 510, 990),
              profile_event("Method::execute", -1, 100, 1000)};
  dump.blocks = {load, b, b};
  dump.metadata["ticks_per_second"] = "1000000000";
  Result<Trace> t = build_trace(dump, "d.etdump");
  REQUIRE(t.ok());
  const size_t n = t->events.size();
  REQUIRE(n == 15);
  CHECK(folded_stacks(*t, {0}) == "forward:load;Program::load_method 100\n");
  // Every subset of one execution's events, alone and with the same subset of the next.
  for (uint32_t mask = 0; mask < (1u << 7); ++mask) {
    std::vector<size_t> one, two;
    for (size_t k = 0; k < 7; ++k) {
      if ((mask >> k) & 1) {
        one.push_back(1 + k);
        two.push_back(1 + k);
      }
    }
    for (size_t k = 0; k < 7; ++k) {
      if ((mask >> k) & 1) two.push_back(8 + k);
    }
    CAPTURE(mask);
    CHECK(folded_stacks(*t, one) == walked_stacks(*t, one));
    CHECK(folded_stacks(*t, two) == walked_stacks(*t, two));
  }
  std::vector<size_t> all;
  for (size_t i = 0; i < n; ++i) all.push_back(i);
  CHECK(folded_stacks(*t, all) == walked_stacks(*t, all));
  CHECK(folded_stacks(*t, all).find("forward;Method::execute;A;C;D 160\n") != std::string::npos);
}

}  // namespace
}  // namespace etkit::inspect

namespace etkit::inspect {
namespace {

TEST_CASE("folded stacks: joined block by block from a reader, the same text as the whole trace") {
  // check_streamed compares folded_stacks of a reader with that of the joined trace.
  const test::DeviceDumpFile device;
  test::check_streamed(device.path());
  Result<TraceReader> reader = TraceReader::open(device.path());
  REQUIRE(reader.ok());
  Result<std::string> text = folded_stacks(*reader, {});
  REQUIRE(text.ok());
  CHECK(text->find("forward;Method::execute;add.out@0;native_call_add.out ") != std::string::npos);
  EventSelection bad;
  bad.name_regex = "(";
  CHECK(folded_stacks(*reader, bad).error().code() == ErrorCode::InvalidArgument);
}

}  // namespace
}  // namespace etkit::inspect
