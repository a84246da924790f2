#include "etkit/inspect/diff.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/devtools/clock.h"
#include "etkit/devtools/etdump_writer.h"
#include "etkit/inspect/etdump.h"

namespace etkit::inspect {
namespace {

// A dump of `iterations` executions of a two-operator method written by etkit's ETDumpWriter;
// every clock read advances `step` ticks, so a larger step is a slower run.
Trace run(uint64_t step, int iterations, bool with_mul = true) {
  std::vector<uint8_t> memory(64 << 10);
  FakeClock clock(step);
  ETDumpWriter w(memory, clock);
  for (int i = 0; i < iterations; ++i) {
    w.create_event_block("forward");
    TracerEntry method = w.start_profiling("Method::execute", kUnsetChainId, kUnsetDebugHandle);
    w.set_chain_debug_handle(0, 0);
    TracerEntry op = w.start_profiling("OPERATOR_CALL");
    TracerEntry kernel = w.start_profiling("native_call_add.out");
    w.end_profiling(kernel);
    w.end_profiling(op);
    if (with_mul) {
      w.set_chain_debug_handle(0, 1);
      TracerEntry op2 = w.start_profiling("OPERATOR_CALL");
      w.end_profiling(op2);
    }
    w.set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
    w.end_profiling(method);
  }
  const std::vector<uint8_t> bytes = w.serialize();
  Result<ETDump> dump = read_etdump(bytes);
  REQUIRE_MESSAGE(dump.ok(), std::string(dump.error().message()));
  Result<Trace> trace = build_trace(*dump, "run.etdump");
  REQUIRE_MESSAGE(trace.ok(), std::string(trace.error().message()));
  return std::move(trace).get();
}

TraceSelection all(const Trace& t) {
  TraceSelection s{&t, {}};
  for (size_t i = 0; i < t.events.size(); ++i) s.events.push_back(i);
  return s;
}

TEST_CASE("diff: a dump against itself has no differences") {
  const Trace a = run(1000, 3);
  const DiffResult r = diff_traces(all(a), all(a), {});
  CHECK(r.rows.size() == 4);
  CHECK_FALSE(r.failed());
  for (const DiffRow& row : r.rows) {
    CHECK(row.status == DiffStatus::Same);
    CHECK(row.count_a == 3);
  }
}

TEST_CASE("diff: a run with a slower clock regresses every event") {
  const Trace a = run(1000, 3);
  const Trace b = run(2000, 3);
  DiffResult r = diff_traces(all(a), all(b), {});
  CHECK(r.failed());
  CHECK(r.regressions == 4);
  const DiffRow& method = r.rows[0];
  CHECK(method.name == "Method::execute");
  CHECK(method.instruction == -1);
  CHECK(method.delta_pct == doctest::Approx(100));
  CHECK(method.delta == method.p50_a);
  // The other way round it is an improvement, which does not fail.
  r = diff_traces(all(b), all(a), {});
  CHECK_FALSE(r.failed());
  CHECK(r.improvements == 4);
  // A threshold above 100% or a minimum time above the slowdown forgive it.
  DiffOptions lenient;
  lenient.threshold_pct = 150;
  CHECK_FALSE(diff_traces(all(a), all(b), lenient).failed());
  lenient.threshold_pct = 10;
  lenient.min_time_ns = 1e6;
  CHECK_FALSE(diff_traces(all(a), all(b), lenient).failed());
}

TEST_CASE("diff: events in only one dump are structural differences") {
  const Trace a = run(1000, 2);
  const Trace b = run(1000, 2, false);
  const DiffResult r = diff_traces(all(a), all(b), {});
  CHECK(r.failed());
  CHECK(r.only_a == 1);
  CHECK(r.only_b == 0);
  const Table t = diff_table(r, TimeUnit::Us, "diff");
  CHECK(t.columns.back().name == "status");
  const Table s = diff_summary_table(r);
  CHECK(std::get<std::string>(s.rows[0][4]) == "fail");
}

TEST_CASE("diff: durations") {
  CHECK(*parse_duration_ns("0") == 0);
  CHECK(*parse_duration_ns("250ns") == 250);
  CHECK(*parse_duration_ns("1.5ms") == 1.5e6);
  CHECK(*parse_duration_ns("2s") == 2e9);
  for (const char* bad : {"10", "ms", "1.5 ms", "-1us", "1min", ""}) {
    Result<double> r = parse_duration_ns(bad);
    CHECK_FALSE(r.ok());
  }
  CHECK(std::string(parse_duration_ns("10").error().message()) ==
        "bad duration '10': expected a number with a unit: ns, us, ms or s");
}

}  // namespace
}  // namespace etkit::inspect
