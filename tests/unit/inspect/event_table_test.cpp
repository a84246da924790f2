#include "etkit/inspect/event_table.h"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "etkit/inspect/delegate_metadata.h"
#include "streamed_dumps.h"

namespace etkit::inspect {
namespace {

Event profile(const std::string& name, int32_t instruction, int32_t delegate_id, uint64_t start,
              uint64_t end) {
  Event e;
  e.kind = Event::Kind::Profile;
  e.profile.name = name;
  e.profile.instruction_id = instruction;
  e.profile.delegate_debug_id_int = delegate_id;
  e.profile.start_time = start;
  e.profile.end_time = end;
  return e;
}

Event logged(int32_t instruction, int32_t delegate_id) {
  Event e;
  e.kind = Event::Kind::Debug;
  e.debug.instruction_id = instruction;
  e.debug.delegate_debug_id_int = delegate_id;
  e.debug.value.kind = LoggedValue::Kind::Int;
  return e;
}

const Cell& cell(const Table& t, size_t row, const std::string& column) {
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (t.columns[c].name == column) return t.rows[row][c];
  }
  FAIL("no column " << column);
  static const Cell none;
  return none;
}

// The event table (ns) of every event of a dump of the one block `b`.
Table table_of_block(const RunBlock& b) {
  ETDump dump;
  dump.blocks = {b};
  Result<Trace> trace = build_trace(dump, "t.etdump");
  REQUIRE(trace.ok());
  std::vector<size_t> all(trace->events.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  return event_table(*trace, all, TimeUnit::Ns);
}

TEST_CASE("event table: values logged at an event's place are joined to it") {
  // A DelegateCall at instruction 0 with steps 1 and 3 (step 1 filtered out: nothing logged),
  // then a kernel at instruction 1 that logged two values.
  RunBlock b;
  b.name = "forward";
  b.events = {profile("DELEGATE_CALL", 0, -1, 0, 10), profile("", 0, 1, 1, 2),
              profile("", 0, 3, 3, 4),              profile("OPERATOR_CALL", 1, -1, 11, 20),
              profile("native_call_x.out", 1, -1, 12, 19)};
  b.events.push_back(logged(0, 3));
  b.events.push_back(logged(1, -1));
  b.events.push_back(logged(1, -1));
  const Table t = table_of_block(b);
  REQUIRE(t.rows.size() == 5);
  CHECK(t.columns[8].name == "values");
  // A list of value indices ("1,2" in text, [1, 2] in JSON), or an empty cell (null).
  auto values = [&](size_t row) { return cell(t, row, "values"); };
  CHECK(std::holds_alternative<std::monostate>(values(0)));  // DELEGATE_CALL logged nothing
  CHECK(std::holds_alternative<std::monostate>(values(1)));  // step 1: filtered
  CHECK(std::get<IntList>(values(2)) == IntList{{0}, "0"});     // step 3
  CHECK(std::get<IntList>(values(3)) == IntList{{1, 2}, "1,2"});  // the kernel's OPERATOR_CALL
  CHECK(std::holds_alternative<std::monostate>(values(4)));  // the event inside: not repeated

  // Without logged values there is no such column.
  b.events.resize(5);
  for (const Column& c : table_of_block(b).columns) CHECK(c.name != "values");
}

TEST_CASE("event table: values logged out of place order are grouped by place, in logging order") {
  // A loop that ran instruction 1 before instruction 0 and then 1 again, and a delegate whose
  // steps 3 and 1 logged in that order: each place lists its values in the order logged.
  RunBlock b;
  b.name = "forward";
  b.events = {profile("OPERATOR_CALL", 0, -1, 0, 10), profile("OPERATOR_CALL", 1, -1, 11, 20),
              profile("DELEGATE_CALL", 2, -1, 21, 30), profile("", 2, 1, 22, 23),
              profile("", 2, 3, 24, 25)};
  for (auto [instruction, delegate] : {std::pair{1, -1}, {0, -1}, {1, -1}, {2, 3}, {2, 1},
                                       {0, -1}, {2, 3}}) {
    b.events.push_back(logged(instruction, delegate));
  }
  const Table t = table_of_block(b);
  REQUIRE(t.rows.size() == 5);
  auto values = [&](size_t row) { return std::get<IntList>(cell(t, row, "values")); };
  CHECK(values(0) == IntList{{1, 5}, "1,5"});     // instruction 0
  CHECK(values(1) == IntList{{0, 2}, "0,2"});     // instruction 1
  CHECK(std::holds_alternative<std::monostate>(cell(t, 2, "values")));  // the DELEGATE_CALL
  CHECK(values(3) == IntList{{4}, "4"});           // step 1
  CHECK(values(4) == IntList{{3, 6}, "3,6"});     // step 3
}

TEST_CASE("event table: floating-point metadata prints with significant digits") {
  ETDump dump;
  RunBlock b;
  b.name = "forward";
  Event step = profile("", 0, 1, 1, 2);
  const float tiny = 3e-7f;
  step.profile.delegate_debug_metadata.resize(sizeof tiny);
  std::memcpy(step.profile.delegate_debug_metadata.data(), &tiny, sizeof tiny);
  b.events = {profile("DELEGATE_CALL", 0, -1, 0, 10), step};
  dump.blocks = {b};
  Result<Trace> trace = build_trace(dump, "t.etdump");
  REQUIRE(trace.ok());
  Result<MetadataLayout> layout = parse_metadata_layout("f32:scale");
  REQUIRE(layout.ok());
  const Table t = event_table(*trace, {0, 1}, TimeUnit::Ns, nullptr, &*layout);
  const std::string text = render({t}, Format::Table);
  CAPTURE(text);
  CHECK(text.find(" 3e-07\n") != std::string::npos);  // not 0.000000
}

}  // namespace
}  // namespace etkit::inspect

namespace etkit::inspect {
namespace {

TEST_CASE("event table: streamed (write_event_table) is the joined table's text on every dump") {
  for (const std::string& path : test::fixture_dumps()) test::check_streamed(path);
  const test::DeviceDumpFile device;
  test::check_streamed(device.path());
}

TEST_CASE("event table: streamed with a bad regex is an error, and writes nothing") {
  Result<TraceReader> reader = TraceReader::open(test::fixture_dumps().front());
  REQUIRE(reader.ok());
  EventSelection bad;
  bad.name_regex = "(";
  std::string out;
  auto write = [&](std::string_view s) { out += s; };
  for (Format f : {Format::Table, Format::Json}) {
    CHECK(write_event_table(*reader, bad, TimeUnit::Ms, f, {}, nullptr, write).code() ==
          ErrorCode::InvalidArgument);
  }
  CHECK(out.empty());
}

TEST_CASE("event table: several dumps streamed into one report are render's text of their tables") {
  std::vector<std::string> paths = test::fixture_dumps();
  const test::DeviceDumpFile device;
  paths.push_back(device.path());
  std::vector<Table> tables;
  for (const std::string& path : paths) {
    Result<Trace> joined = load_trace(path);
    REQUIRE(joined.ok());
    tables.push_back(event_table(*joined, *select_events(*joined, {}), TimeUnit::Us));
  }
  RenderOptions options;
  options.auto_time_units = true;
  options.warnings = {"a.etdump: 3 events were dropped", "b.etdump: \"quoted\""};
  for (Format f : {Format::Json, Format::Table, Format::Csv}) {
    std::string out;
    ReportStream report(f, options, [&](std::string_view s) { out += s; });
    for (const std::string& path : paths) {
      Result<TraceReader> reader = TraceReader::open(path);
      REQUIRE(reader.ok());
      REQUIRE(write_event_table(*reader, {}, TimeUnit::Us, nullptr, report).ok());
    }
    report.finish();
    CHECK(out == render(tables, f, options));
  }
}

}  // namespace
}  // namespace etkit::inspect
