#include "etkit/inspect/folded_stacks.h"

#include <doctest/doctest.h>

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
