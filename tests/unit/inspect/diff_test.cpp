#include "etkit/inspect/diff.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/devtools/clock.h"
#include "etkit/devtools/etdump_writer.h"
#include "etkit/inspect/etdump.h"
#include "etkit/inspect/report_stream.h"
#include "etkit/inspect/verdict.h"

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
  CHECK(method.delta == method.stat_a);
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
  CHECK(std::get<std::string>(s.rows[0].back()) == "fail");
}

// A hand-made event: name, instruction (-1 outside one), delegate id (an int id; -1 none),
// start and end in ticks (ns: the dump names no tick rate).
struct Ev {
  std::string name;
  int32_t instruction = -1;
  int32_t delegate = -1;
  uint64_t start = 0, end = 0;
};

// A dump of method `method` with one execution block per element of `blocks`.
Trace dump_of(const std::vector<std::vector<Ev>>& blocks, const std::string& method = "forward") {
  ETDump dump;
  for (const std::vector<Ev>& events : blocks) {
    RunBlock b;
    b.name = method;
    for (const Ev& ev : events) {
      Event e;
      e.kind = Event::Kind::Profile;
      e.profile.name = ev.delegate >= 0 ? "" : ev.name;
      e.profile.chain_index = ev.instruction < 0 ? -1 : 0;
      e.profile.instruction_id = ev.instruction < 0 ? 0 : ev.instruction;
      e.profile.delegate_debug_id_int = ev.delegate;
      e.profile.start_time = ev.start;
      e.profile.end_time = ev.end;
      b.events.push_back(e);
    }
    dump.blocks.push_back(b);
  }
  Result<Trace> trace = build_trace(dump, "d.etdump");
  REQUIRE_MESSAGE(trace.ok(), std::string(trace.error().message()));
  return std::move(trace).get();
}

// One iteration: Method::execute around an OPERATOR_CALL of `ns` nanoseconds at instruction 0.
std::vector<Ev> op_taking(uint64_t ns) {
  return {{"Method::execute", -1, -1, 0, ns + 20}, {"OPERATOR_CALL", 0, -1, 10, 10 + ns}};
}

const DiffRow& row_named(const DiffResult& r, const std::string& name) {
  for (const DiffRow& row : r.rows) {
    if (row.name == name) return row;
  }
  FAIL("no row " << name);
  return r.rows.front();
}

TEST_CASE("diff: the median ignores one outlier iteration; the mean does not") {
  const Trace a = dump_of({op_taking(100), op_taking(100), op_taking(100), op_taking(100),
                           op_taking(100)});
  // One stalled iteration out of five, 100 times slower.
  const Trace b = dump_of({op_taking(100), op_taking(10000), op_taking(100), op_taking(100),
                           op_taking(100)});
  DiffOptions median;
  median.min_samples = 5;
  DiffResult r = diff_traces(all(a), all(b), median);
  CHECK(r.verdict() == Verdict::Pass);
  CHECK(r.judged == 2);
  const DiffRow& op = row_named(r, "OPERATOR_CALL");
  CHECK(op.count_b == 5);
  CHECK(op.stat_a == 100);
  CHECK(op.stat_b == 100);
  CHECK(op.status == DiffStatus::Same);

  DiffOptions mean = median;
  mean.statistic = DiffStatistic::Mean;
  r = diff_traces(all(a), all(b), mean);
  CHECK(r.verdict() == Verdict::Fail);
  CHECK(r.regressions == 2);
  CHECK(row_named(r, "OPERATOR_CALL").stat_b == (4 * 100.0 + 10000) / 5);
  CHECK(diff_table(r, TimeUnit::Ns, "d").columns[7].name == "mean_a");

  // Too few samples to judge: not a verdict at all.
  DiffOptions strict = median;
  strict.min_samples = 6;
  r = diff_traces(all(a), all(b), strict);
  CHECK(r.few_samples == 2);
  CHECK(r.judged == 0);
  CHECK(r.verdict() == Verdict::Incomplete);
  CHECK(row_named(r, "OPERATOR_CALL").status == DiffStatus::FewSamples);
  CHECK(diff_incomplete_text(r, a, b, strict) ==
        "nothing was compared: 2 matched events, each with fewer than 6 samples on a side "
        "(--min-samples)");
}

TEST_CASE("diff: an instruction whose operator changed is a structural difference") {
  // A runs relu.out at instruction 0, B addmm.out: the OPERATOR_CALLs are not compared.
  const Trace a = dump_of({{{"Method::execute", -1, -1, 0, 200},
                            {"OPERATOR_CALL", 0, -1, 10, 110},
                            {"native_call_relu.out", 0, -1, 20, 100}}});
  const Trace b = dump_of({{{"Method::execute", -1, -1, 0, 200},
                            {"OPERATOR_CALL", 0, -1, 10, 190},
                            {"native_call_addmm.out", 0, -1, 20, 180}}});
  const DiffResult r = diff_traces(all(a), all(b), {});
  CHECK(r.op_changed == 1);
  CHECK(r.only_a == 1);
  CHECK(r.only_b == 1);
  CHECK(r.judged == 1);  // Method::execute
  CHECK(r.verdict() == Verdict::Fail);
  const DiffRow& op = row_named(r, "OPERATOR_CALL");
  CHECK(op.status == DiffStatus::OpChanged);
  CHECK(op.op == "relu.out");
  CHECK(op.op_b == "addmm.out");
  CHECK(row_named(r, "native_call_addmm.out").op_b == "addmm.out");
  CHECK(row_named(r, "native_call_addmm.out").op.empty());
  const Table t = diff_table(r, TimeUnit::Ns, "d");
  CHECK(t.columns[3].name == "op");
  CHECK(t.columns[4].name == "op_b");
  CHECK(std::get<int64_t>(diff_summary_table(r).rows[0][3]) == 1);  // op_changed
}

TEST_CASE("diff: nothing in common is incomplete; a method map pairs the blocks") {
  const Trace a = dump_of({op_taking(100)}, "Execute");
  const Trace b = dump_of({op_taking(100)});
  DiffResult r = diff_traces(all(a), all(b), {});
  CHECK(r.judged == 0);
  CHECK(r.only_a == 2);
  CHECK(r.verdict() == Verdict::Incomplete);
  CHECK(std::get<std::string>(diff_summary_table(r).rows[0].back()) == "incomplete");
  CHECK(diff_incomplete_text(r, a, b, {}) ==
        "nothing was compared: no method in common (methods of a: 'Execute'; of b: 'forward'); "
        "pair them with --method-map A=B");
  DiffOptions mapped;
  mapped.methods = {{"Execute", "forward"}};
  r = diff_traces(all(a), all(b), mapped);
  CHECK(r.judged == 2);
  CHECK(r.verdict() == Verdict::Pass);
  CHECK(r.rows[0].method == "Execute");
}

TEST_CASE("diff: with debug maps, a fused step meets the portable operations it stands for") {
  // Portable: three kernels, handles 1, 2, 3. Fused: one DelegateCall whose step 1 stands for
  // {1, 2} and step 3 for {3}.
  DebugMap portable;
  MethodDebugMap& pm = portable.methods["forward"];
  for (int32_t i = 0; i < 3; ++i) {
    pm.instructions.push_back({0, i, InstructionKind::Kernel, "aten::x.out",
                               {static_cast<uint32_t>(i + 1)}, {}});
  }
  pm.nodes = {{1, {"fc1", "", "", ""}}, {2, {"hidden", "", "", ""}}, {3, {"y", "", "", ""}}};
  DebugMap fused;
  MethodDebugMap& fm = fused.methods["forward"];
  fm.instructions.push_back({0, 0, InstructionKind::Delegate, "EtkitFusedBackend", {1, 2, 3}, {}});
  DelegateEntry d;
  d.backend = "EtkitFusedBackend";
  d.identifiers[int64_t{1}] = {1, 2};
  d.identifiers[int64_t{3}] = {3};
  fm.delegates.push_back(d);
  fm.nodes = pm.nodes;

  auto portable_run = [] {
    return std::vector<Ev>{{"Method::execute", -1, -1, 0, 400},
                           {"OPERATOR_CALL", 0, -1, 10, 110},
                           {"native_call_addmm.out", 0, -1, 20, 100},
                           {"OPERATOR_CALL", 1, -1, 110, 210},
                           {"OPERATOR_CALL", 2, -1, 210, 310}};
  };
  auto fused_run = [] {
    return std::vector<Ev>{{"Method::execute", -1, -1, 0, 400},
                           {"DELEGATE_CALL", 0, -1, 10, 270},
                           {"", 0, 1, 10, 160},
                           {"", 0, 3, 160, 260}};
  };
  const Trace a = dump_of({portable_run(), portable_run()});
  const Trace b = dump_of({fused_run(), fused_run()});
  DiffOptions options;
  options.map_a = &portable;
  options.map_b = &fused;
  const DiffResult r = diff_traces(all(a), all(b), options);
  CHECK(r.by_handle);
  CHECK(r.only_a == 0);
  CHECK(r.only_b == 0);
  CHECK(r.judged == 3);  // Method::execute, {1, 2}, {3}
  REQUIRE(r.rows.size() == 3);
  const DiffRow& pair = r.rows[1];
  CHECK(pair.handles == std::vector<uint32_t>{1, 2});
  CHECK(pair.name == "fc1,hidden");
  CHECK(pair.count_a == 2);      // one sample per iteration: the sum of fc1's and hidden's
  CHECK(pair.stat_a == 200);
  CHECK(pair.stat_b == 150);
  CHECK(pair.status == DiffStatus::Improvement);
  const DiffRow& y = r.rows[2];
  CHECK(y.handles == std::vector<uint32_t>{3});
  CHECK(y.stat_a == 100);
  CHECK(y.stat_b == 100);
  CHECK(y.status == DiffStatus::Same);
  const Table t = diff_table(r, TimeUnit::Ns, "d");
  CHECK(t.columns[2].name == "debug_handles");
  CHECK(std::get<IntList>(t.rows[1][2]).items == std::vector<int64_t>{1, 2});
  // Streamed, the handles' cells are borrowed row by row: the same text (JSON lists the items).
  for (Format format : {Format::Table, Format::Json}) {
    std::string out;
    ReportStream report(format, {}, [&](std::string_view piece) { out += piece; });
    REQUIRE(write_diff_tables(r, TimeUnit::Ns, "d", report).ok());
    report.finish();
    CHECK(out == render({t, diff_summary_table(r)}, format));
  }
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
