#include "etkit/inspect/trace.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "etkit/host/runner.h"
#include "etkit/inspect/trace_reader.h"
#include "inspect_test_util.h"
#include "trace_test_dumps.h"

namespace etkit::inspect {
namespace {

using test::build_ok;
using test::execution;
using test::profile;

TEST_CASE("trace: blocks, methods, iterations and the load flag") {
  ETDump dump;
  RunBlock load;
  load.name = "forward:load";
  load.events.push_back(profile("Program::load_method", -1, 0, 0, 5));
  dump.blocks = {load, execution("forward", 10), execution("forward", 30), execution("Execute", 50)};
  RunBlock et_load;
  et_load.name = "Default";
  dump.blocks.push_back(et_load);
  const Trace t = build_ok(dump);
  REQUIRE(t.blocks.size() == 5);
  CHECK(t.blocks[0].method == "forward");
  CHECK(t.blocks[0].load);
  CHECK(t.blocks[1].iteration == 0);
  CHECK(t.blocks[2].iteration == 1);
  CHECK_FALSE(t.blocks[2].load);
  CHECK(t.blocks[3].method == "Execute");
  CHECK(t.blocks[4].method == "Execute");
  CHECK(t.blocks[4].load);
  CHECK(t.blocks[1].num_events == 4);  // the allocation event is not a profile event
  CHECK_FALSE(t.ticks_recorded);
  CHECK(t.ticks_per_second == 1e9);
}

TEST_CASE("trace: the clock drift sentence gives the percent with its sign") {
  CHECK(clock_drift_warning(0.0123) ==
        "the TSC clock ran 1.23% off the system clock during the run (it changed rate or "
        "jumped): event times may be off by as much");
  CHECK(clock_drift_warning(-0.005).find("ran -0.50% off") != std::string::npos);
  Trace trace;
  CHECK(trace_warnings(trace).empty());
  trace.clock_drift = -0.005;
  CHECK(trace_warnings(trace) == std::vector<std::string>{clock_drift_warning(-0.005)});
}

TEST_CASE("trace: nesting, self time and operators") {
  ETDump dump;
  dump.blocks = {execution("forward", 100)};
  dump.metadata["ticks_per_second"] = "1000000";  // ticks are microseconds
  const Trace t = build_ok(dump);
  REQUIRE(t.events.size() == 4);
  // Start order: Method::execute, OPERATOR_CALL 0, native_call, OPERATOR_CALL 1.
  CHECK(t.events[0].name == "Method::execute");
  CHECK(t.events[0].parent == -1);
  CHECK(t.events[0].duration_ns == 10000);
  CHECK(t.events[0].self_ns == 10000 - 3000 - 4000);
  CHECK(t.events[0].op.empty());
  CHECK(t.events[0].instruction == -1);
  CHECK(t.events[1].name == "OPERATOR_CALL");
  CHECK(t.events[1].parent == 0);
  CHECK(t.events[1].depth == 1);
  CHECK(t.events[1].op == "add.out");
  CHECK(t.events[1].self_ns == 2000);
  CHECK(t.events[1].start_ns == 1000);
  CHECK(t.events[2].name == "native_call_add.out");
  CHECK(t.events[2].parent == 1);
  CHECK(t.events[2].depth == 2);
  CHECK(t.events[2].index == 0);
  CHECK(t.events[3].op.empty());  // no native_call event for instruction 1
  CHECK(t.events[3].index == 3);
}

TEST_CASE("trace: joining a dump by move gives the same trace and frees its events") {
  ETDump dump;
  dump.blocks = {execution("forward", 100), execution("forward", 200)};
  const Trace copy = build_ok(dump);
  Result<Trace> moved = build_trace(std::move(dump), "x.etdump");
  REQUIRE(moved.ok());
  REQUIRE(moved->events.size() == copy.events.size());
  for (size_t i = 0; i < copy.events.size(); ++i) {
    CHECK(moved->events[i].name == copy.events[i].name);
    CHECK(moved->events[i].self_ns == copy.events[i].self_ns);
    CHECK(moved->events[i].parent == copy.events[i].parent);
  }
  CHECK(dump.blocks[1].events.empty());  // NOLINT(bugprone-use-after-move): documented state
}

TEST_CASE("trace: equal intervals nest the earlier-written event in the later one") {
  ETDump dump;
  RunBlock b;
  b.name = "forward";
  b.events.push_back(profile("inner", 0, 0, 10, 20));
  b.events.push_back(profile("outer", 0, 0, 10, 20));
  dump.blocks = {b};
  const Trace t = build_ok(dump);
  CHECK(t.events[0].name == "outer");
  CHECK(t.events[1].parent == 0);
  CHECK(t.events[0].self_ns == 0);
}

TEST_CASE("trace: delegate events, wrapped counters and bad times") {
  ETDump dump;
  RunBlock b;
  b.name = "Execute";
  Event d = profile("", 0, 3, 4294967000u, 100);  // a 32-bit counter that wrapped
  d.profile.delegate_debug_id_int = 7;
  b.events.push_back(d);
  dump.blocks = {b};
  Trace t = build_ok(dump);
  CHECK(t.events[0].name == "7");
  CHECK(t.events[0].delegate);
  CHECK(t.events[0].op == "delegate");
  CHECK(t.events[0].duration_ns == (4294967295.0 - 4294967000.0) + 100);

  dump.blocks[0].events[0].profile.start_time = uint64_t{1} << 40;
  Result<Trace> r = build_trace(dump, "x.etdump");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::InvalidData);
  CHECK(std::string(r.error().message()) ==
        "x.etdump: run 0 event 0: end time 100 is before start time 1099511627776");

  dump.blocks[0].events[0].profile.start_time = 10;
  dump.metadata["ticks_per_second"] = "fast";
  r = build_trace(dump, "x.etdump");
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.error().message()) ==
        "x.etdump: metadata ticks_per_second 'fast' is not a positive integer");
}

TEST_CASE("trace: profiler device events are flagged and stay out of the host's nesting") {
  ETDump dump;
  RunBlock b = execution("forward", 100);
  Event dev = profile("", 0, 0, 101, 104);  // within OPERATOR_CALL 0's interval
  dev.profile.delegate_debug_id_str = "prof:sim:OPERATOR_CALL";
  b.events.push_back(dev);
  Event odd = profile("", 0, 1, 106, 107);  // no second colon: the device is the rest
  odd.profile.delegate_debug_id_str = "prof:npu";
  b.events.push_back(odd);
  Event other = profile("", 0, 1, 106, 108);  // a delegate's own event, not a profiler's
  other.profile.delegate_debug_id_str = "profile:step";
  b.events.push_back(other);
  dump.blocks = {b};
  const Trace t = build_ok(dump);
  const TraceEvent* sim = nullptr;
  const TraceEvent* npu = nullptr;
  const TraceEvent* own = nullptr;
  for (const TraceEvent& e : t.events) {
    if (e.name == "prof:sim:OPERATOR_CALL") sim = &e;
    if (e.name == "prof:npu") npu = &e;
    if (e.name == "profile:step") own = &e;
    if (!e.device) CHECK(event_device(e).empty());
  }
  REQUIRE(sim != nullptr);
  REQUIRE(npu != nullptr);
  REQUIRE(own != nullptr);
  CHECK(sim->device);
  CHECK(event_device(*sim) == "sim");
  CHECK(event_device(*npu) == "npu");
  CHECK(sim->parent == -1);
  CHECK(sim->depth == 0);
  CHECK(sim->self_ns == sim->duration_ns);
  CHECK(sim->op == "delegate");  // the operator stays as for every delegate event
  CHECK_FALSE(own->device);
  CHECK(own->parent >= 0);  // a delegate's own event nests in its instruction
  // The host events keep their self time: the device event does not shorten OPERATOR_CALL 0.
  for (const TraceEvent& e : t.events) {
    if (e.name == "OPERATOR_CALL" && e.instruction == 0) CHECK(e.self_ns == 2);
  }
}

}  // namespace
}  // namespace etkit::inspect
