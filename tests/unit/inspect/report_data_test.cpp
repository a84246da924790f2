#include "etkit/inspect/report_data.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "profile_events.h"
#include "report_reference.h"

namespace etkit::inspect {
namespace {

using testing::profile_event;

// Three iterations of forward taking 3000, 1000 and 2000 ns: a delegate call (instruction 1)
// with one delegate event inside, inside Method::execute.
Trace three_iterations() {
  ETDump dump;
  const uint64_t lengths[] = {3000, 1000, 2000};
  uint64_t t0 = 0;
  for (uint64_t len : lengths) {
    RunBlock b;
    b.name = "forward";
    Event d = profile_event("", 1, t0 + 200, t0 + 300);
    d.profile.delegate_debug_id_str = "node </script>";
    b.events.push_back(d);
    b.events.push_back(profile_event("DELEGATE_CALL", 1, t0 + 100, t0 + len / 2));
    b.events.push_back(profile_event("Method::execute", -1, t0, t0 + len));
    dump.blocks.push_back(b);
    t0 += 10000;
  }
  dump.metadata["ticks_per_second"] = "1000000000";
  Result<Trace> t = build_trace(dump, "d.etdump");
  REQUIRE(t.ok());
  return std::move(t).get();
}

nlohmann::json data_of(const Trace& trace, const ReportOptions& options) {
  ReportDump d;
  d.trace = &trace;
  for (size_t i = 0; i < trace.events.size(); ++i) d.selected.push_back(i);
  Result<std::string> json = report_data_json({d}, nullptr, options);
  REQUIRE(json.ok());
  return nlohmann::json::parse(*json);
}

TEST_CASE("report data: the median iteration's timeline, relative to its first event") {
  const Trace trace = three_iterations();
  const nlohmann::json doc = data_of(trace, {});
  const nlohmann::json& dump = doc["dumps"][0];
  // Iteration times 3000, 1000, 2000: the median is iteration 2 (2000 ns).
  const nlohmann::json& iters = dump["iterations"][0];
  CHECK(iters["method"] == "forward");
  CHECK(iters["time_ns"] == std::vector<double>{3000, 1000, 2000});
  CHECK(iters["p50_ns"] == 2000.0);
  CHECK(iters["p90_ns"] == doctest::Approx(2800.0));  // 2000 + 0.8 * (3000 - 2000)
  const nlohmann::json& tl = dump["timeline"];
  CHECK(tl["iteration"] == 2);
  CHECK(tl["time_ns"] == 2000.0);
  CHECK(tl["spans_total"] == 3);
  REQUIRE(tl["spans"].size() == 3);
  // Columns start, duration, self, depth, track, name, ...: Method::execute first.
  CHECK(tl["spans"][0][0] == 0.0);
  CHECK(tl["spans"][0][1] == 2000.0);
  CHECK(tl["spans"][0][2] == 2000.0 - 900.0);
  CHECK(tl["spans"][0][4] == "host");
  CHECK(tl["spans"][1][5] == "DELEGATE_CALL");
  CHECK(tl["spans"][2][4] == "delegate");
  CHECK(tl["spans"][2][0] == 200.0);
  CHECK(tl["spans"][2][3] == 2);  // inside DELEGATE_CALL inside Method::execute
  REQUIRE(dump["delegates"].size() == 1);
  CHECK(dump["delegates"][0]["name"] == "node </script>");
  CHECK(dump["delegates"][0]["duration_ns"] == 100.0);
  // The delegate call's time per iteration (operator `delegate`), in block order.
  REQUIRE(dump["distribution"].size() == 1);
  CHECK(dump["distribution"][0]["operator"] == "delegate");
  CHECK(dump["distribution"][0]["time_ns"] == std::vector<double>{1400, 400, 900});
}

TEST_CASE("report data: --iteration picks one; a missing one is an error naming the dump") {
  const Trace trace = three_iterations();
  ReportOptions options;
  options.iteration = 0;
  CHECK(data_of(trace, options)["dumps"][0]["timeline"]["time_ns"] == 3000.0);
  options.iteration = 3;
  ReportDump d;
  d.trace = &trace;
  for (size_t i = 0; i < trace.events.size(); ++i) d.selected.push_back(i);
  Result<std::string> r = report_data_json({d}, nullptr, options);
  REQUIRE(!r.ok());
  CHECK(std::string(r.error().message()) ==
        "d.etdump: method 'forward' has no measured complete iteration 3 (it has 3)");
  options.iteration = -1;
  options.method = "encode";
  r = report_data_json({d}, nullptr, options);
  REQUIRE(!r.ok());
  CHECK(std::string(r.error().message()) ==
        "d.etdump: no measured complete iteration of method 'encode' to draw a timeline of");
}

TEST_CASE("report data: no measured iteration gives no timeline, unless one is asked for") {
  const Trace trace = three_iterations();
  ReportDump d;
  d.trace = &trace;  // nothing selected
  Result<std::string> r = report_data_json({d}, nullptr, {});
  REQUIRE(r.ok());
  const nlohmann::json doc = nlohmann::json::parse(*r);
  CHECK(doc["dumps"][0]["timeline"].is_null());
  CHECK(doc["dumps"][0]["iterations"].empty());
  ReportOptions options;
  options.iteration = 0;
  CHECK(!report_data_json({d}, nullptr, options).ok());
}

TEST_CASE("report data: beyond max_spans the longest spans stay, the rest are summed by name") {
  const Trace trace = three_iterations();
  ReportOptions options;
  options.max_spans = 1;
  const nlohmann::json tl = data_of(trace, options)["dumps"][0]["timeline"];
  CHECK(tl["spans_total"] == 3);
  CHECK(tl["spans_shown"] == 1);
  REQUIRE(tl["spans"].size() == 1);
  CHECK(tl["spans"][0][5] == "Method::execute");
  REQUIRE(tl["omitted"].size() == 2);
  CHECK(tl["omitted"][0]["name"] == "DELEGATE_CALL");
  CHECK(tl["omitted"][0]["total_ns"] == 900.0);
  CHECK(tl["omitted"][1]["name"] == "node </script>");
  CHECK(tl["omitted"][1]["count"] == 1);
}

TEST_CASE("report data: the tables are embedded as --format json renders them") {
  const Trace trace = three_iterations();
  ReportDump d;
  d.trace = &trace;
  for (size_t i = 0; i < trace.events.size(); ++i) d.selected.push_back(i);
  Table t;
  t.name = "stats";
  t.title = "events";
  t.unit = "ms";
  t.columns = {{"name", 0}, {"p50", 3, true}};
  t.rows = {{std::string("x"), 0.1 + 0.2}};
  d.stats = {t};
  d.warnings = {"d.etdump: a warning"};
  Result<std::string> r = report_data_json({d}, nullptr, {});
  REQUIRE(r.ok());
  RenderOptions render_options;
  render_options.warnings = d.warnings;
  CHECK(nlohmann::json::parse(*r)["dumps"][0]["stats"] ==
        nlohmann::json::parse(render({t}, Format::Json, render_options)));
  CHECK(nlohmann::json::parse(*r)["dumps"][0]["stats"]["tables"][0]["rows"][0]["p50"] ==
        0.1 + 0.2);
}

// The timeline's spans are written by hand; its text must be the document's that the report
// built before (report_reference.h) on an iteration with everything a span can hold.
TEST_CASE("report data: the timeline's text is the document's, spans written by hand") {
  // One iteration of 200 instructions at a tick rate that makes fractional nanoseconds: kernel
  // calls with their native_call_ events, delegate calls with delegate events whose ids need
  // escaping or are not UTF-8, and device events; a debug map naming some instructions.
  ETDump dump;
  RunBlock b;
  b.name = "forward";
  uint64_t t = 7;
  std::vector<Event> inner;
  for (int32_t k = 0; k < 200; ++k) {
    const uint64_t start = t;
    if (k % 5 == 3) {
      Event d = profile_event("", k, start + 2, start + 9);
      if (k % 2 == 0) {
        d.profile.delegate_debug_id_int = k;
      } else {
        d.profile.delegate_debug_id_str = std::string("n\"\\\x01\xff<") + std::to_string(k);
      }
      inner.push_back(d);
      inner.push_back(profile_event("DELEGATE_CALL", k, start, start + 13 + k % 7));
    } else if (k % 7 == 6) {
      Event device = profile_event("", k, start + 1, start + 5);
      device.profile.delegate_debug_id_str = "prof:gpu:kernel_" + std::to_string(k);
      inner.push_back(device);
      inner.push_back(profile_event("OPERATOR_CALL", k, start, start + 11));
    } else {
      inner.push_back(profile_event("native_call_add.out", k, start + 1, start + 4 + k % 3));
      inner.push_back(profile_event("OPERATOR_CALL", k, start, start + 6 + k % 5));
    }
    t += 20 + static_cast<uint64_t>(k % 3);
  }
  b.events = inner;
  b.events.push_back(profile_event("Method::execute", -1, 0, t + 5));
  dump.blocks.push_back(b);
  dump.metadata["ticks_per_second"] = "300000000";
  Result<Trace> joined = build_trace(dump, "d.etdump");
  REQUIRE(joined.ok());
  const Trace& trace = *joined;
  DebugMap map;
  MethodDebugMap& m = map.methods["forward"];
  for (int32_t k = 0; k < 200; k += 3) {
    InstructionEntry entry;
    entry.index = k;
    entry.op = "aten::add.out";
    entry.debug_handles = {static_cast<uint32_t>(k + 1), static_cast<uint32_t>(k + 400)};
    m.instructions.push_back(entry);
    m.nodes[static_cast<uint32_t>(k + 1)] = {"node \"" + std::to_string(k) + "\"", "", "", ""};
    m.nodes[static_cast<uint32_t>(k + 400)] = {"x\xfe" + std::to_string(k), "", "", ""};
  }
  map.normalize();
  std::vector<size_t> selected(trace.events.size());
  for (size_t i = 0; i < selected.size(); ++i) selected[i] = i;
  ReportIteration iteration{"forward", 0, 0, trace.events[0].start_ns,
                            trace.events[0].start_ns + trace.events[0].duration_ns};
  const test::report_reference::Iteration reference{0, 0, iteration.start_ns, iteration.end_ns};
  auto compact = [](const test::report_reference::json& j) {
    return j.dump(-1, ' ', false, test::report_reference::json::error_handler_t::replace);
  };
  size_t delegates = 0, devices = 0, fractional = 0;
  for (const TraceEvent& e : trace.events) {
    delegates += e.delegate ? 1 : 0;
    devices += e.device ? 1 : 0;
    fractional += e.start_ns != std::floor(e.start_ns) ? 1 : 0;
  }
  CHECK(delegates == 40 + devices);
  CHECK(devices > 20);
  CHECK(fractional > 100);
  const DebugMap* const maps[] = {nullptr, &map};
  for (const DebugMap* with : maps) {
    for (size_t max_spans : {size_t{20000}, size_t{150}, size_t{1}}) {
      CAPTURE(max_spans);
      ReportOptions options;
      options.max_spans = max_spans;
      const ReportTimeline got = report_timeline(trace, selected, with, iteration, options);
      // The oracle: the document as the report built it before it streamed.
      ReportDump dump_of;
      dump_of.trace = &trace;
      dump_of.selected = selected;
      dump_of.map = with;
      test::report_reference::json delegates_want;
      const test::report_reference::json want = test::report_reference::timeline_json(
          dump_of, reference, "forward", options, delegates_want);
      CHECK(got.timeline == compact(want));
      CHECK(got.delegates == compact(delegates_want));
    }
  }
}

}  // namespace
}  // namespace etkit::inspect
