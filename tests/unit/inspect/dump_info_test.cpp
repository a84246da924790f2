#include "etkit/inspect/dump_info.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "etkit/devtools/clock.h"
#include "etkit/devtools/etdump_writer.h"
#include "etkit/host/file_util.h"
#include "etkit/inspect/trace_reader.h"
#include "inspect_test_util.h"
#include "streamed_dumps.h"

namespace etkit::inspect {
namespace {

// The value of `field` in the dump table.
Cell field(const Table& t, const std::string& name) {
  for (const auto& row : t.rows) {
    if (std::get<std::string>(row[0]) == name) return row[1];
  }
  FAIL("no field " << name);
  return Cell();
}

std::string text(const Cell& c) { return std::get<std::string>(c); }
int64_t number(const Cell& c) { return std::get<int64_t>(c); }

// A writer over 64 KiB with a fake clock, for dumps made by hand.
struct HandWriter {
  std::vector<uint8_t> memory = std::vector<uint8_t>(64 << 10);
  FakeClock clock;
  ETDumpWriter w{memory, clock};
};

TEST_CASE("dump info: an etkit dump with warm-up, by hand") {
  HandWriter hand;
  ETDumpWriter& w = hand.w;
  w.create_event_block("forward:load");
  w.end_profiling(w.start_profiling("Method::init"));
  w.track_allocation(w.track_allocator("method_allocator"), 64);
  w.set_warmup(true);
  for (int i = 0; i < 2; ++i) {
    w.create_event_block("forward");
    w.end_profiling(w.start_profiling("Method::execute"));
  }
  w.set_warmup(false);
  for (int i = 0; i < 3; ++i) {
    w.create_event_block("forward");
    w.end_profiling(w.start_profiling("OPERATOR_CALL"));
    w.end_profiling(w.start_profiling("Method::execute"));
    w.log_profiling_delegate("", 7, 1, 2);  // a delegate's event by integer id
  }
  w.set_interrupted();
  const std::string path = "/tmp/etkit-dump-info-" + std::to_string(::getpid()) + ".etdump";
  REQUIRE(write_file_atomic(path, w.serialize()).ok());
  Result<DumpInfo> info = dump_info(path);
  std::filesystem::remove(path);
  REQUIRE_MESSAGE(info.ok(), std::string(info.error().message()));
  REQUIRE(info->tables.size() == 2);  // no profiler warnings
  const Table& d = info->tables[0];
  CHECK(text(field(d, "writer")) == "etkit");
  CHECK(text(field(d, "clock")) == "fake");
  CHECK(number(field(d, "ticks_per_second")) == 1000000000);
  CHECK(text(field(d, "ticks_recorded")) == "yes");
  CHECK(number(field(d, "blocks")) == 6);
  CHECK(number(field(d, "events")) == 1 + 2 + 3 * 3);
  CHECK(number(field(d, "warmup_executions")) == 2);
  CHECK(number(field(d, "dropped_events")) == 0);
  CHECK(std::holds_alternative<std::monostate>(field(d, "incomplete_from")));
  CHECK(text(field(d, "interrupted")) == "yes");
  CHECK(text(field(d, "debug_buffer_present")) == "no");
  CHECK(info->warnings.empty());

  const Table& b = info->tables[1];
  REQUIRE(b.rows.size() == 3);
  // blocks, method, kind, iterations, count, profile, delegate, device, values, allocations
  CHECK(text(b.rows[0][0]) == "0:1");
  CHECK(text(b.rows[0][2]) == "load");
  CHECK(std::holds_alternative<std::monostate>(b.rows[0][3]));
  CHECK(number(b.rows[0][9]) == 1);  // the allocation
  CHECK(text(b.rows[1][0]) == "1:3");
  CHECK(text(b.rows[1][2]) == "warmup");
  CHECK(text(b.rows[1][3]) == "0:2");
  CHECK(number(b.rows[1][5]) == 2);
  CHECK(text(b.rows[2][0]) == "3:6");
  CHECK(text(b.rows[2][1]) == "forward");
  CHECK(text(b.rows[2][2]) == "execute");
  CHECK(text(b.rows[2][3]) == "0:3");
  CHECK(number(b.rows[2][4]) == 3);
  CHECK(number(b.rows[2][5]) == 6);
  CHECK(number(b.rows[2][6]) == 3);
  CHECK(number(b.rows[2][7]) == 0);
}

TEST_CASE("dump info: a real ExecuTorch dump has no etkit metadata") {
  Result<DumpInfo> info = dump_info(test::fixture_path("real/etdump/et-tutorial-cnn.etdp"));
  REQUIRE_MESSAGE(info.ok(), std::string(info.error().message()));
  const Table& d = info->tables[0];
  CHECK(text(field(d, "writer")) == "unknown (no etkit metadata)");
  CHECK(number(field(d, "ticks_per_second")) == 1000000000);
  CHECK(text(field(d, "ticks_recorded")) == "no (nanoseconds assumed)");
  CHECK(text(field(d, "interrupted")) == "no");
  CHECK(text(field(d, "framing")) == "size-prefixed");  // ED00 at bytes 8..11
}

TEST_CASE("dump info: a missing file is an error naming it") {
  Result<DumpInfo> info = dump_info("/no/such.etdump");
  REQUIRE_FALSE(info.ok());
  CHECK(std::string(info.error().message()).rfind("/no/such.etdump: ", 0) == 0);
}

TEST_CASE("dump info: the event counts of every fixture dump are those of its joined trace") {
  // Blocks without delegate events are counted from their summaries, the others joined.
  for (const std::string& path : test::fixture_dumps()) {
    CAPTURE(path);
    Result<Trace> trace = load_trace(path);
    REQUIRE(trace.ok());
    int64_t profile = 0, delegate = 0, device = 0;
    for (const TraceEvent& e : trace->events) {
      if (e.device) {
        ++device;
      } else if (e.delegate) {
        ++delegate;
      } else {
        ++profile;
      }
    }
    Result<TraceReader> reader = TraceReader::open(path);
    REQUIRE(reader.ok());
    Result<DumpInfo> info = dump_info(*reader);
    REQUIRE(info.ok());
    Result<DumpInfo> by_path = dump_info(path);
    REQUIRE(by_path.ok());
    CHECK(render(info->tables, Format::Json) == render(by_path->tables, Format::Json));
    const Table& blocks = info->tables[1];
    REQUIRE(blocks.name == "blocks");
    int64_t sums[3] = {0, 0, 0};
    const char* names[3] = {"profile", "delegate", "device"};
    for (size_t c = 0; c < blocks.columns.size(); ++c) {
      for (size_t k = 0; k < 3; ++k) {
        if (blocks.columns[c].name != names[k]) continue;
        for (const auto& row : blocks.rows) sums[k] += std::get<int64_t>(row[c]);
      }
    }
    CHECK(sums[0] == profile);
    CHECK(sums[1] == delegate);
    CHECK(sums[2] == device);
  }
}

TEST_CASE("dump info: a dump whose TSC drifted warns in every reader, and a bad drift is refused") {
  HandWriter hand;
  ETDumpWriter& w = hand.w;
  w.create_event_block("forward");
  w.end_profiling(w.start_profiling("OPERATOR_CALL"));
  const std::string path = "/tmp/etkit-dump-drift-" + std::to_string(::getpid()) + ".etdump";
  // What TraceSession::finish writes when the TSC parted from the system clock.
  const std::string drift[] = {"clock_drift=0.0123"};
  REQUIRE(write_file_atomic(path, w.serialize(drift)).ok());
  Result<DumpInfo> info = dump_info(path);
  REQUIRE_MESSAGE(info.ok(), std::string(info.error().message()));
  REQUIRE(info->warnings.size() == 1);
  CHECK(info->warnings[0] ==
        "the TSC clock ran 1.23% off the system clock during the run (it changed rate or "
        "jumped): event times may be off by as much");
  Result<TraceReader> reader = TraceReader::open(path);
  REQUIRE(reader.ok());
  CHECK(reader->skeleton().clock_drift == 0.0123);
  CHECK(trace_warnings(reader->skeleton()) == info->warnings);

  for (const char* bad : {"clock_drift=", "clock_drift=x", "clock_drift=0", "clock_drift=inf",
                          "clock_drift=0.1%"}) {
    CAPTURE(bad);
    const std::string extra[] = {bad};
    REQUIRE(write_file_atomic(path, w.serialize(extra)).ok());
    Result<TraceReader> r = TraceReader::open(path);
    REQUIRE_FALSE(r.ok());
    CHECK(std::string(r.error().message()) ==
          path + ": metadata clock_drift '" + (bad + std::string_view("clock_drift=").size()) +
              "' is not a non-zero number");
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace etkit::inspect
