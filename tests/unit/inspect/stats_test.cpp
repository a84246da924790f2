#include "etkit/inspect/stats.h"

#include <doctest/doctest.h>

#include "etkit/devtools/clock.h"
#include "etkit/devtools/etdump_writer.h"
#include "etkit/inspect/profiler_counters.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/inspect/event_selection.h"
#include "profile_events.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace etkit::inspect {
namespace {

Event profile(std::string name, int32_t instruction, uint64_t start, uint64_t end) {
  return testing::profile_event(std::move(name), instruction, start, end);
}

// `n` executions; execution i takes 10 + i ticks for its add, 100 ticks in all. With
// `device`, per execution one `prof:sim` event inside each instruction (7 and 5 ticks) and one
// outside any instruction (3 ticks).
Trace sample(int n, bool device = false) {
  ETDump dump;
  for (int i = 0; i < n; ++i) {
    const uint64_t t0 = 1000 * static_cast<uint64_t>(i);
    RunBlock b;
    b.name = "forward";
    b.events.push_back(profile("native_call_add.out", 0, t0 + 2, t0 + 12 + static_cast<uint64_t>(i)));
    b.events.push_back(profile("OPERATOR_CALL", 0, t0 + 1, t0 + 40));
    b.events.push_back(profile("native_call_mul.out", 1, t0 + 50, t0 + 60));
    b.events.push_back(profile("OPERATOR_CALL", 1, t0 + 45, t0 + 70));
    b.events.push_back(profile("Method::execute", -1, t0, t0 + 100));
    for (auto [instruction, start, end] : {std::tuple{0, 3, 10}, {1, 50, 55}, {-1, 95, 98}}) {
      if (!device) break;
      Event d = profile("", instruction, t0 + static_cast<uint64_t>(start),
                        t0 + static_cast<uint64_t>(end));
      d.profile.delegate_debug_id_str = "prof:sim:OPERATOR_CALL";
      b.events.push_back(d);
    }
    dump.blocks.push_back(b);
  }
  Result<Trace> t = build_trace(dump, device ? "d.etdump" : "s.etdump");
  REQUIRE(t.ok());
  return std::move(t).get();
}

std::vector<size_t> all(const Trace& t) {
  std::vector<size_t> v(t.events.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

TEST_CASE("stats: percentiles interpolate like numpy") {
  CHECK(percentile({1, 2, 3, 4}, 50) == 2.5);
  CHECK(percentile({1, 2, 3, 4}, 10) == doctest::Approx(1.3));
  CHECK(percentile({5}, 90) == 5);
  CHECK(percentile({1, 3}, 100) == 3);
}

// One block of `durations.size()` root events named "a", "b" or "c" in turn.
Trace flat_trace(const std::vector<double>& durations) {
  Trace t;
  t.path = "flat.etdump";
  TraceBlock& b = t.blocks.emplace_back();
  b.name = b.method = "forward";
  b.num_events = durations.size();
  static const char* kNames[] = {"a", "b", "c"};
  for (size_t i = 0; i < durations.size(); ++i) {
    TraceEvent& e = t.events.emplace_back();
    e.name = kNames[i % 3];
    e.index = static_cast<uint32_t>(i);
    e.duration_ns = e.self_ns = durations[i];
  }
  return t;
}

TEST_CASE("stats: order statistics and totals equal those of the sorted durations, bit for bit") {
  // Whole durations take the selection path, fractions and huge values the sort; both must
  // give what percentile() and an ascending sum give on the sorted durations.
  uint64_t seed = 12345;
  auto next = [&] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return seed >> 33;
  };
  for (double scale : {1.0, 0.3, 1e13}) {
    for (size_t n : {1, 2, 3, 7, 10, 11, 1000, 1001}) {
      std::vector<double> durations(n);
      for (double& d : durations) d = static_cast<double>(next() % 5000) * scale;
      const Trace t = flat_trace(durations);
      const std::vector<GroupStats> stats = compute_stats({{&t, all(t)}}, GroupBy::Name,
                                                          SortKey::Key);
      for (const GroupStats& g : stats) {
        std::vector<double> sorted;
        for (size_t i = 0; i < n; ++i) {
          if (t.events[i].name == g.key) sorted.push_back(durations[i]);
        }
        std::sort(sorted.begin(), sorted.end());
        double total = 0;
        for (double x : sorted) total += x;
        CAPTURE(scale);
        CAPTURE(n);
        CAPTURE(g.key);
        CHECK(g.count == sorted.size());
        CHECK(g.min == sorted.front());
        CHECK(g.max == sorted.back());
        CHECK(g.p10 == percentile(sorted, 10));
        CHECK(g.p50 == percentile(sorted, 50));
        CHECK(g.p90 == percentile(sorted, 90));
        CHECK(g.total == total);
      }
    }
  }
}

TEST_CASE("stats: by name, with self time and shares") {
  const Trace t = sample(5);
  const std::vector<GroupStats> s = compute_stats({{&t, all(t)}}, GroupBy::Name, SortKey::Total);
  REQUIRE(s.size() == 4);
  CHECK(s[0].key == "Method::execute");
  CHECK(s[1].key == "OPERATOR_CALL");
  CHECK(s[1].count == 10);
  const GroupStats* add = nullptr;
  for (const GroupStats& g : s) {
    if (g.key == "native_call_add.out") add = &g;
  }
  REQUIRE(add != nullptr);
  CHECK(add->count == 5);
  CHECK(add->min == 10);
  CHECK(add->max == 14);
  CHECK(add->p50 == 12);
  CHECK(add->p10 == doctest::Approx(10.4));
  CHECK(add->mean == 12);
  CHECK(add->total == 60);
  CHECK(add->self == 60);
  CHECK(add->share == doctest::Approx(100.0 * 60 / 500));
  double shares = 0;
  for (const GroupStats& g : s) shares += g.share;
  CHECK(shares == doctest::Approx(100));
}

TEST_CASE("stats: by operator counts each instruction once; sorting and ties") {
  const Trace t = sample(2);
  std::vector<GroupStats> s = compute_stats({{&t, all(t)}}, GroupBy::Operator, SortKey::Total);
  REQUIRE(s.size() == 2);
  CHECK(s[0].key == "add.out");
  CHECK(s[0].count == 2);
  CHECK(s[0].total == 78);
  CHECK(s[1].key == "mul.out");
  s = compute_stats({{&t, all(t)}}, GroupBy::Instruction, SortKey::Key);
  REQUIRE(s.size() == 2);
  CHECK(s[0].key == "0");
  CHECK(s[0].op == "add.out");
  s = compute_stats({{&t, all(t)}}, GroupBy::Operator, SortKey::Count);  // equal counts
  CHECK(s[0].key == "add.out");
  CHECK(*parse_sort_key("p50") == SortKey::P50);
  CHECK_FALSE(parse_group_by("debug").ok());
}

TEST_CASE("stats: tables and the operator summary") {
  const Trace t = sample(2);
  const Table table = stats_table(compute_stats({{&t, all(t)}}, GroupBy::Name, SortKey::Total),
                                  GroupBy::Name, TimeUnit::Ns, 2, "statistics");
  CHECK(table.rows.size() == 2);
  CHECK(table.columns[1].name == "name");
  CHECK(table.columns.back().name == "share");
  const Table summary = operator_summary_table({{&t, all(t)}}, TimeUnit::Ns, "summary");
  REQUIRE(summary.rows.size() == 2);
  CHECK(std::get<std::string>(summary.rows[0][1]) == "add.out");
  CHECK(summary.columns[3].name == "per_iteration");
  CHECK(std::get<double>(summary.rows[0][3]) == 1);  // 2 calls in 2 iterations
  CHECK(summary.columns[7].name == "cumulative");
  CHECK(std::get<double>(summary.rows[1][7]) == doctest::Approx(100));
  CHECK(summary.columns.size() == 8);  // no FLOP counts without a debug map
}

ArgInfo tensor(std::vector<int64_t> sizes) {
  ArgInfo a;
  a.kind = ArgKind::Tensor;
  a.dtype = "float32";
  a.sizes = std::move(sizes);
  return a;
}

// sample()'s two instructions with arguments: add [2,3] + [3] (6 FLOPs, (6 + 3 + 6) * 4 = 60
// bytes) and mul [4] * [4] (4 FLOPs, 3 * 16 = 48 bytes); each call ends with its return slot.
DebugMap sample_map() {
  DebugMap map;
  MethodDebugMap& m = map.methods["forward"];
  InstructionEntry add;
  add.op = "aten::add.out";
  ArgInfo alpha;
  alpha.kind = ArgKind::Double;
  alpha.number = 1;
  add.args = {tensor({2, 3}), tensor({3}), alpha, tensor({2, 3}), tensor({2, 3})};
  InstructionEntry mul;
  mul.index = 1;
  mul.op = "aten::mul.out";
  mul.args = {tensor({4}), tensor({4}), tensor({4}), tensor({4})};
  m.instructions = {add, mul};
  map.normalize();
  return map;
}

TEST_CASE("stats: by shape, FLOPs and bytes per second, FLOP shares") {
  const Trace t = sample(2);
  const DebugMap map = sample_map();
  StatsAccumulator by_shape(GroupBy::Shape, false, &map);
  by_shape.add(t, all(t));
  const std::vector<GroupStats> s = by_shape.finish(SortKey::Total);
  REQUIRE(s.size() == 2);
  CHECK(s[0].op == "add.out");
  CHECK(s[0].shapes == "float32[2, 3], float32[3]");
  CHECK(s[0].count == 2);
  CHECK(s[0].flops == 12);
  CHECK(s[0].bytes == 120);
  // 12 FLOPs in 78 ns: 12 / 78 GFLOP/s; 120 bytes in 78 ns.
  CHECK(s[0].gflops_per_s() == doctest::Approx(12.0 / 78));
  CHECK(s[0].gbytes_per_s() == doctest::Approx(120.0 / 78));
  CHECK(s[1].shapes == "float32[4], float32[4]");
  const Table table = stats_table(s, GroupBy::Shape, TimeUnit::Ns, 0, "by shape");
  CHECK(table.columns[1].name == "operator");
  CHECK(table.columns[2].name == "input_shapes");
  CHECK(std::get<std::string>(table.rows[0][2]) == "float32[2, 3], float32[3]");
  CHECK(table.columns[table.columns.size() - 2].name == "gflop_per_s");
  REQUIRE(table.columns[table.columns.size() - 4].name == "flops");
  CHECK(std::get<double>(table.rows[0][table.columns.size() - 4]) == 6);   // per call
  CHECK(std::get<double>(table.rows[0][table.columns.size() - 3]) == 60);  // bytes per call
  CHECK(std::get<double>(table.rows[1][table.columns.size() - 1]) ==
        doctest::Approx(96.0 / 50));  // mul: 2 * 48 bytes in 2 * 25 ns
  CHECK(*parse_group_by("shape") == GroupBy::Shape);

  StatsAccumulator ops(GroupBy::Operator, false, &map);
  ops.add(t, all(t));
  const Table summary = operator_summary_table(ops.finish(SortKey::Total), TimeUnit::Ns, "ops");
  const size_t share = summary.columns.size() - 2;
  REQUIRE(summary.columns[share].name == "flops_percent");
  REQUIRE(summary.columns.back().name == "gflop_per_s");
  // add: 12 of the method's 12 + 8 FLOPs; mul 8 of 20.
  CHECK(std::get<double>(summary.rows[0][share]) == doctest::Approx(60));
  CHECK(std::get<double>(summary.rows[1][share]) == doctest::Approx(40));
  // The rate beside the share: add's 12 FLOPs in 78 ns, as by shape above.
  CHECK(std::get<double>(summary.rows[0].back()) == doctest::Approx(12.0 / 78));

  // An operator without a FLOP formula: its rate and share are empty, not 0.
  DebugMap other = map;
  other.methods["forward"].instructions[1].op = "aten::cumsum.out";
  StatsAccumulator by_op(GroupBy::Operator, false, &other);
  by_op.add(t, all(t));
  std::vector<GroupStats> o = by_op.finish(SortKey::Total);
  REQUIRE(o.size() == 2);
  // The events' own op names decide the grouping; only the FLOP formula looks at the map's.
  CHECK(o[1].flopped == 0);
  CHECK(o[1].costed == 2);
  CHECK(o[1].gflops_per_s() < 0);
  const Table t2 = stats_table(o, GroupBy::Operator, TimeUnit::Ns, 0, "ops");
  CHECK(std::holds_alternative<std::monostate>(t2.rows[1][t2.columns.size() - 2]));
  const Table s2 = operator_summary_table(o, TimeUnit::Ns, "ops");
  const size_t share2 = s2.columns.size() - 2;
  CHECK(std::get<double>(s2.rows[0][share2]) == doctest::Approx(100));
  CHECK(std::holds_alternative<std::monostate>(s2.rows[1][share2]));
  CHECK(std::holds_alternative<std::monostate>(s2.rows[1].back()));  // no rate either
}


void check_same_stats(const std::vector<GroupStats>& a, const std::vector<GroupStats>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].method == b[i].method);
    CHECK(a[i].key == b[i].key);
    CHECK(a[i].op == b[i].op);
    CHECK(a[i].count == b[i].count);
    // Bit-identical, not approximately equal: the printed tables must not change.
    for (auto [x, y] : {std::pair{a[i].min, b[i].min}, {a[i].p10, b[i].p10},
                        {a[i].p50, b[i].p50}, {a[i].p90, b[i].p90}, {a[i].mean, b[i].mean},
                        {a[i].max, b[i].max}, {a[i].total, b[i].total},
                        {a[i].self, b[i].self}, {a[i].share, b[i].share}}) {
      CHECK(x == y);
    }
  }
}

// Durations that do not add up exactly in floating point (a tick of 1/3 ns), so that a different
// summation order would show.
Trace uneven_sample(int n, uint64_t seed) {
  ETDump dump;
  dump.metadata["ticks_per_second"] = "3000000000";
  uint64_t state = seed;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % 97;
  };
  for (int i = 0; i < n; ++i) {
    const uint64_t t0 = 100000 * static_cast<uint64_t>(i);
    RunBlock b;
    b.name = i % 3 == 0 ? "encode" : "forward";
    const uint64_t a = next(), m = next();
    b.events.push_back(profile("native_call_add.out", 0, t0 + 2, t0 + 3 + a));
    b.events.push_back(profile("OPERATOR_CALL", 0, t0 + 1, t0 + 400 + a));
    b.events.push_back(profile("native_call_mul.out", 1, t0 + 500, t0 + 501 + m));
    b.events.push_back(profile("OPERATOR_CALL", 1, t0 + 450, t0 + 700 + m));
    b.events.push_back(profile("Method::execute", -1, t0, t0 + 1000 + a + m));
    dump.blocks.push_back(b);
  }
  Result<Trace> t = build_trace(dump, "u.etdump");
  REQUIRE(t.ok());
  return std::move(t).get();
}

TEST_CASE("stats: accumulated block by block and merged across dumps, bit for bit") {
  const Trace a = uneven_sample(40, 1);
  const Trace b = uneven_sample(25, 2);
  for (GroupBy by : {GroupBy::Name, GroupBy::Operator, GroupBy::Instruction}) {
    CAPTURE(static_cast<int>(by));
    // One block per call, as `stats` joins them.
    StatsAccumulator per_block(by);
    for (size_t blk = 0; blk < a.blocks.size(); ++blk) {
      std::vector<size_t> sel;
      for (size_t i = 0; i < a.blocks[blk].num_events; ++i) sel.push_back(a.blocks[blk].first_event + i);
      per_block.add(a, sel);
    }
    check_same_stats(per_block.finish(SortKey::Total),
                     compute_stats({{&a, all(a)}}, by, SortKey::Total));
    // Two dumps pooled: merged per-dump accumulators equal the pooled computation.
    StatsAccumulator acc_a(by, true);
    StatsAccumulator acc_b(by, true);
    acc_a.add(a, all(a));
    acc_b.add(b, all(b));
    check_same_stats(acc_b.finish(SortKey::P50), compute_stats({{&b, all(b)}}, by, SortKey::P50));
    StatsAccumulator pooled(by, true);
    pooled.merge(acc_a);
    pooled.merge(acc_b);
    check_same_stats(pooled.finish(SortKey::Self),
                     compute_stats({{&a, all(a)}, {&b, all(b)}}, by, SortKey::Self));
  }
  // The summary from operator statistics is the summary from the selections.
  StatsAccumulator ops(GroupBy::Operator);
  ops.add(a, all(a));
  const Table from_stats = operator_summary_table(ops.finish(SortKey::Total), TimeUnit::Us, "t");
  const Table from_sources = operator_summary_table({{&a, all(a)}}, TimeUnit::Us, "t");
  CHECK(render({from_stats}, Format::Json) == render({from_sources}, Format::Json));
}

TEST_CASE("stats: accumulate_stats joins, selects and aggregates block by block") {
  const std::vector<uint8_t> bytes = [] {
    std::ifstream in(std::string(ETKIT_FIXTURES_DIR) + "/real/generated/bench_profile_1k.etdump",
                     std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  }();
  REQUIRE(!bytes.empty());
  Result<TraceReader> reader = TraceReader::over(bytes, "p.etdump");
  REQUIRE(reader.ok());
  const Trace whole = reader->join_all();
  for (const char* regex : {"", "native_call_.*", "nothing"}) {
    EventSelection selection;
    selection.include_load = false;
    selection.name_regex = regex;
    Result<EventSelector> selector = EventSelector::make(selection);
    REQUIRE(selector.ok());
    StatsAccumulator by_name(GroupBy::Name);
    StatsAccumulator by_op(GroupBy::Operator);
    REQUIRE(accumulate_stats(*reader, &*selector, nullptr, by_name, &by_op).ok());
    const std::vector<size_t> sel = *select_events(whole, selection);
    check_same_stats(by_name.finish(SortKey::Total),
                     compute_stats({{&whole, sel}}, GroupBy::Name, SortKey::Total));
    check_same_stats(by_op.finish(SortKey::Total),
                     compute_stats({{&whole, sel}}, GroupBy::Operator, SortKey::Total));
  }
  // A null selector selects nothing.
  StatsAccumulator none(GroupBy::Name);
  REQUIRE(accumulate_stats(*reader, nullptr, nullptr, none, nullptr).ok());
  CHECK(none.finish(SortKey::Total).empty());
}

std::span<const uint8_t> text_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Two methods, a load block and two runs of `forward` with perf and sim device events (the sim
// ones without counters) and a delegate event whose metadata is not a profiler's.
std::vector<uint8_t> profiled_dump() {
  std::vector<uint8_t> memory(1 << 16);
  FakeClock clock;
  ETDumpWriter writer(memory, clock);
  writer.create_event_block("forward:load");
  writer.log_profiling_delegate("prof:perf:OPERATOR_CALL", -1, 1, 2,
                                text_bytes("etkit-prof/1;device=perf;cycles=1000"));
  for (int run = 0; run < 2; ++run) {
    writer.create_event_block("forward");
    writer.set_chain_debug_handle(0, 3);
    TracerEntry op = writer.start_profiling("OPERATOR_CALL");
    writer.log_profiling_delegate("prof:perf:OPERATOR_CALL", -1, 10, 20,
                                  text_bytes("etkit-prof/1;device=perf;cycles=100;instructions=40"));
    writer.end_profiling(op);
    writer.set_chain_debug_handle(0, 12);
    writer.log_profiling_delegate("prof:perf:OPERATOR_CALL", -1, 20, 30,
                                  text_bytes("etkit-prof/1;device=perf;cycles=50;instructions=10"));
    writer.log_profiling_delegate("prof:sim:OPERATOR_CALL", -1, 20, 30,
                                  text_bytes("etkit-prof/1;device=sim"));
    writer.log_profiling_delegate("other", -1, 20, 30, text_bytes("cycles=5"));
  }
  writer.create_event_block("encode");
  writer.set_chain_debug_handle(0, 0);
  writer.log_profiling_delegate("prof:perf:OPERATOR_CALL", -1, 40, 50,
                                text_bytes("etkit-prof/1;device=perf;cycles=7"));
  return writer.serialize();
}

TEST_CASE("stats: profiler counters gathered in the stats pass equal those of the whole dump") {
  const std::vector<uint8_t> bytes = profiled_dump();
  Result<ETDump> dump = read_etdump(bytes);
  REQUIRE(dump.ok());
  for (bool by_instruction : {false, true}) {
    CAPTURE(by_instruction);
    Result<TraceReader> reader = TraceReader::over(bytes, "p.etdump");
    REQUIRE(reader.ok());
    EventSelection selection;
    selection.include_load = true;  // load blocks are skipped all the same
    Result<EventSelector> selector = EventSelector::make(selection);
    REQUIRE(selector.ok());
    StatsAccumulator by(GroupBy::Name);
    CounterAccumulator counters(by_instruction);
    REQUIRE(accumulate_stats(*reader, &*selector, nullptr, by, nullptr, &counters).ok());
    const ProfilerCounters got = counters.finish();
    const ProfilerCounters want = profiler_counters(*dump, by_instruction);
    CHECK(got.names == want.names);
    REQUIRE(got.groups.size() == want.groups.size());
    for (size_t g = 0; g < got.groups.size(); ++g) {
      CHECK(got.groups[g].method == want.groups[g].method);
      CHECK(got.groups[g].key == want.groups[g].key);
      CHECK(got.groups[g].device == want.groups[g].device);
      CHECK(got.groups[g].count == want.groups[g].count);
      CHECK(got.groups[g].totals == want.groups[g].totals);
    }
  }
  // The counters follow the selection, like the statistics beside them.
  Result<TraceReader> reader = TraceReader::over(bytes, "p.etdump");
  REQUIRE(reader.ok());
  EventSelection only_encode;
  only_encode.method = "encode";
  Result<EventSelector> selector = EventSelector::make(only_encode);
  REQUIRE(selector.ok());
  StatsAccumulator by(GroupBy::Name);
  CounterAccumulator counters(false);
  REQUIRE(accumulate_stats(*reader, &*selector, nullptr, by, nullptr, &counters).ok());
  const ProfilerCounters got = counters.finish();
  CHECK(got.names == std::vector<std::string>{"cycles"});
  REQUIRE(got.groups.size() == 1);
  CHECK(got.groups[0].method == "encode");
  CHECK(got.groups[0].totals == std::vector<uint64_t>{7});
}

Trace sample_with_device(int n) { return sample(n, true); }

const GroupStats* find_group(const std::vector<GroupStats>& s, const std::string& key) {
  for (const GroupStats& g : s) {
    if (g.key == key) return &g;
  }
  return nullptr;
}

TEST_CASE("stats: device events are kept apart from host time") {
  const Trace host = sample(4);
  const Trace t = sample_with_device(4);
  const double host_time = 4 * 100;  // Method::execute, the only outermost host event

  // By name: the host rows are as without device events and add up to 100%; the device row's
  // share is its time against the host's.
  const std::vector<GroupStats> by_name = compute_stats({{&t, all(t)}}, GroupBy::Name, SortKey::Key);
  const std::vector<GroupStats> host_by_name =
      compute_stats({{&host, all(host)}}, GroupBy::Name, SortKey::Key);
  double host_shares = 0;
  for (const GroupStats& g : by_name) {
    if (g.device) continue;
    host_shares += g.share;
    const GroupStats* same = find_group(host_by_name, g.key);
    REQUIRE(same != nullptr);
    CHECK(g.share == same->share);
    CHECK(g.self == same->self);
  }
  CHECK(host_shares == doctest::Approx(100));
  const GroupStats* dev = find_group(by_name, "prof:sim:OPERATOR_CALL");
  REQUIRE(dev != nullptr);
  CHECK(dev->device);
  CHECK(dev->count == 12);
  CHECK(dev->total == 4 * (7 + 5 + 3));
  CHECK(dev->share == doctest::Approx(100.0 * 60 / host_time));

  // By operator: host operators count their instructions once, as without device events; every
  // device event (an instruction's or not) counts under device:sim.
  const std::vector<GroupStats> by_op = compute_stats({{&t, all(t)}}, GroupBy::Operator, SortKey::Total);
  const std::vector<GroupStats> host_by_op =
      compute_stats({{&host, all(host)}}, GroupBy::Operator, SortKey::Total);
  REQUIRE(by_op.size() == host_by_op.size() + 1);
  for (const GroupStats& g : host_by_op) {
    const GroupStats* same = find_group(by_op, g.key);
    REQUIRE(same != nullptr);
    CHECK_FALSE(same->device);
    CHECK(same->count == g.count);
    CHECK(same->total == g.total);
    CHECK(same->share == g.share);
  }
  const GroupStats* sim = find_group(by_op, "device:sim");
  REQUIRE(sim != nullptr);
  CHECK(sim->device);
  CHECK(sim->count == 12);
  CHECK(sim->total == 60);
  CHECK(find_group(by_op, "delegate") == nullptr);

  // By instruction: a device row of its own per instruction, after the host row when sorted by
  // key; events outside an instruction are not counted.
  const std::vector<GroupStats> by_ins =
      compute_stats({{&t, all(t)}}, GroupBy::Instruction, SortKey::Key);
  REQUIRE(by_ins.size() == 4);
  CHECK(by_ins[0].key == "0");
  CHECK(by_ins[0].op == "add.out");
  CHECK(by_ins[0].count == 4);
  CHECK_FALSE(by_ins[0].device);
  CHECK(by_ins[1].key == "0 device:sim");
  CHECK(by_ins[1].op == "device:sim");
  CHECK(by_ins[1].count == 4);
  CHECK(by_ins[1].total == 4 * 7);
  CHECK(by_ins[1].device);
  CHECK(by_ins[2].key == "1");
  CHECK(by_ins[3].op == "device:sim");
  const Table ins_table = stats_table(by_ins, GroupBy::Instruction, TimeUnit::Ns, 0, "t");
  CHECK(std::get<int64_t>(ins_table.rows[1][1]) == 0);
  CHECK(std::get<std::string>(ins_table.rows[1][2]) == "device:sim");

  // The operator summary is the host's alone; the device summary is against its 100%.
  const Table summary = operator_summary_table(by_op, TimeUnit::Ns, "s");
  REQUIRE(summary.rows.size() == 2);
  CHECK(std::get<double>(summary.rows[1][7]) == doctest::Approx(100));
  const Table host_summary = operator_summary_table(host_by_op, TimeUnit::Ns, "s");
  CHECK(render({summary}, Format::Json) == render({host_summary}, Format::Json));
  const Table devices = device_summary_table(by_op, TimeUnit::Ns, "d");
  REQUIRE(devices.rows.size() == 1);
  CHECK(std::get<std::string>(devices.rows[0][1]) == "sim");
  CHECK(std::get<int64_t>(devices.rows[0][2]) == 12);
  double host_op_time = 0;
  for (const GroupStats& g : host_by_op) host_op_time += g.total;
  CHECK(std::get<double>(devices.rows[0][5]) == doctest::Approx(100.0 * 60 / host_op_time));
  CHECK(device_summary_table(host_by_op, TimeUnit::Ns, "d").rows.empty());

  // Accumulated and merged, the device rows stay device rows.
  StatsAccumulator a(GroupBy::Operator, true);
  a.add(t, all(t));
  StatsAccumulator pooled(GroupBy::Operator, true);
  pooled.merge(a);
  const std::vector<GroupStats> merged = pooled.finish(SortKey::Total);
  REQUIRE(find_group(merged, "device:sim") != nullptr);
  CHECK(find_group(merged, "device:sim")->device);
}

}  // namespace
}  // namespace etkit::inspect
