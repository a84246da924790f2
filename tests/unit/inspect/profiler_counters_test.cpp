// Profiler counters in a dump: parsed from the events' metadata and summed for etdump-inspect.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "etkit/devtools/etdump_writer.h"
#include "etkit/inspect/profiler_counters.h"

namespace etkit::inspect {
namespace {

std::span<const uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST_CASE("profiler counters: metadata parsing") {
  std::string device;
  std::vector<std::pair<std::string, uint64_t>> counters;
  REQUIRE(parse_profiler_metadata("etkit-prof/1;device=perf;cycles=120;instructions=80;clipped=1",
                                  &device, &counters));
  CHECK(device == "perf");
  REQUIRE(counters.size() == 2);
  CHECK(counters[0] == std::pair<std::string, uint64_t>{"cycles", 120});
  CHECK(counters[1] == std::pair<std::string, uint64_t>{"instructions", 80});
  CHECK(parse_profiler_metadata("etkit-prof/1;device=sim", &device, &counters));
  CHECK(counters.empty());
  CHECK(parse_profiler_metadata("etkit-prof/1;device=x;bad=-3;also=1.5;ok=7", &device, &counters));
  REQUIRE(counters.size() == 1);  // only unsigned integers count
  CHECK(counters[0].first == "ok");
  CHECK_FALSE(parse_profiler_metadata("some delegate's bytes", &device, &counters));
  CHECK_FALSE(parse_profiler_metadata("etkit-prof/10;device=x", &device, &counters));
}

TEST_CASE("profiler counters: summed per event name and per instruction, load blocks skipped") {
  std::vector<uint8_t> memory(1 << 16);
  FakeClock clock;
  ETDumpWriter writer(memory, clock);
  writer.create_event_block("forward:load");
  writer.log_profiling_delegate("prof:perf:OPERATOR_CALL", -1, 1, 2,
                                bytes("etkit-prof/1;device=perf;cycles=1000"));
  for (int run = 0; run < 2; ++run) {
    writer.create_event_block("forward");
    writer.set_chain_debug_handle(0, 3);
    writer.log_profiling_delegate("prof:perf:OPERATOR_CALL", -1, 10, 20,
                                  bytes("etkit-prof/1;device=perf;cycles=100;instructions=40"));
    writer.set_chain_debug_handle(0, 12);
    writer.log_profiling_delegate("prof:perf:OPERATOR_CALL", -1, 20, 30,
                                  bytes("etkit-prof/1;device=perf;cycles=50;instructions=10"));
    writer.log_profiling_delegate("prof:sim:OPERATOR_CALL", -1, 20, 30,
                                  bytes("etkit-prof/1;device=sim"));  // no counters: ignored
    writer.log_profiling_delegate("other", -1, 20, 30, bytes("cycles=5"));  // not ours
  }
  Result<ETDump> dump = read_etdump(writer.serialize());
  REQUIRE(dump.ok());

  const ProfilerCounters by_name = profiler_counters(*dump, false);
  CHECK(by_name.names == std::vector<std::string>{"cycles", "instructions"});
  REQUIRE(by_name.groups.size() == 1);
  CHECK(by_name.groups[0].method == "forward");
  CHECK(by_name.groups[0].key == "prof:perf:OPERATOR_CALL");
  CHECK(by_name.groups[0].count == 4);
  CHECK(by_name.groups[0].totals == std::vector<uint64_t>{300, 100});

  const ProfilerCounters by_instruction = profiler_counters(*dump, true);
  REQUIRE(by_instruction.groups.size() == 2);
  CHECK(by_instruction.groups[0].key == "3");  // numeric order: 3 before 12
  CHECK(by_instruction.groups[1].key == "12");
  CHECK(by_instruction.groups[0].totals == std::vector<uint64_t>{200, 80});

  const Table t = profiler_counters_table(by_instruction, true, "profiler counters of x");
  REQUIRE(t.columns.size() == 8);
  CHECK(t.columns[4].name == "cycles");
  CHECK(t.columns[5].name == "cycles_per_event");
  CHECK(std::get<double>(t.rows[1][5]) == doctest::Approx(50.0));
  CHECK(std::get<int64_t>(t.rows[0][1]) == 3);
}

}  // namespace
}  // namespace etkit::inspect

namespace etkit::inspect {
namespace {

// A statistics table shaped as `stats_table` makes it: method, KEY[, op], count.
Table stats_like(const std::string& key, bool with_op, std::vector<std::vector<Cell>> rows) {
  Table t;
  t.columns = {{"method", 0}, {key, 0}};
  if (with_op) t.columns.push_back({"op", 0});
  t.columns.push_back({"count", 0});
  t.rows = std::move(rows);
  return t;
}

ProfilerCounters two_devices(bool by_instruction) {
  ProfilerCounters c;
  c.names = {"cycles", "count"};  // "count" clashes with a statistics column
  c.groups = {{"forward", by_instruction ? "0" : "prof:perf:OPERATOR_CALL", "perf", 2, {200, 4}},
              {"forward", by_instruction ? "1" : "prof:perf:DELEGATE_CALL", "perf", 1, {50, 1}},
              {"forward", by_instruction ? "1" : "prof:toy:step", "toy", 4, {8, 0}}};
  return c;
}

TEST_CASE("profiler counters: extra columns on the statistics rows they belong to") {
  SUBCASE("by name") {
    Table t = stats_like("name", false,
                         {{std::string("forward"), std::string("OPERATOR_CALL"), int64_t{5}},
                          {std::string("forward"), std::string("prof:perf:OPERATOR_CALL"), int64_t{2}},
                          {std::string("encode"), std::string("prof:perf:OPERATOR_CALL"), int64_t{1}}});
    REQUIRE(add_counter_columns(t, two_devices(false)));
    REQUIRE(t.columns.size() == 7);
    CHECK(t.columns[3].name == "cycles");
    CHECK(t.columns[4].name == "cycles_per_event");
    CHECK(t.columns[5].name == "counter_count");
    CHECK(t.columns[6].name == "counter_count_per_event");
    CHECK(std::holds_alternative<std::monostate>(t.rows[0][3]));  // a host event
    CHECK(std::get<int64_t>(t.rows[1][3]) == 200);
    CHECK(std::get<double>(t.rows[1][4]) == 100.0);
    CHECK(std::get<int64_t>(t.rows[1][5]) == 4);
    CHECK(std::holds_alternative<std::monostate>(t.rows[2][3]));  // another method
  }
  SUBCASE("by instruction: the device rows of each instruction") {
    Table t = stats_like("instruction", true,
                         {{std::string("forward"), int64_t{1}, std::string("add.out"), int64_t{3}},
                          {std::string("forward"), int64_t{1}, std::string("device:perf"), int64_t{1}},
                          {std::string("forward"), int64_t{1}, std::string("device:toy"), int64_t{4}},
                          {std::string("forward"), int64_t{0}, std::string("device:perf"), int64_t{2}}});
    REQUIRE(add_counter_columns(t, two_devices(true)));
    CHECK(std::holds_alternative<std::monostate>(t.rows[0][4]));
    CHECK(std::get<int64_t>(t.rows[1][4]) == 50);
    CHECK(std::get<int64_t>(t.rows[2][4]) == 8);
    CHECK(std::get<double>(t.rows[2][5]) == 2.0);
    CHECK(std::get<int64_t>(t.rows[3][4]) == 200);
  }
  SUBCASE("by operator: a device's groups summed") {
    Table t = stats_like("operator", false,
                         {{std::string("forward"), std::string("device:perf"), int64_t{3}},
                          {std::string("forward"), std::string("add.out"), int64_t{3}}});
    REQUIRE(add_counter_columns(t, two_devices(false)));
    CHECK(std::get<int64_t>(t.rows[0][3]) == 250);
    CHECK(std::get<double>(t.rows[0][4]) == doctest::Approx(250.0 / 3));
    CHECK(std::holds_alternative<std::monostate>(t.rows[1][3]));
  }
  SUBCASE("by debug handle: no mapping, the table is left alone") {
    Table t = stats_like("debug_handle", true, {});
    CHECK_FALSE(add_counter_columns(t, two_devices(false)));
    CHECK(t.columns.size() == 4);
  }
}

}  // namespace
}  // namespace etkit::inspect
