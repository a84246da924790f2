#include "etkit/inspect/stats.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace etkit::inspect {
namespace {

Event profile(std::string name, int32_t instruction, uint64_t start, uint64_t end) {
  Event e;
  e.profile.name = std::move(name);
  e.profile.chain_index = instruction < 0 ? -1 : 0;
  e.profile.instruction_id = instruction < 0 ? 0 : instruction;
  e.profile.start_time = start;
  e.profile.end_time = end;
  return e;
}

// `n` executions; execution i takes 10 + i ticks for its add, 100 ticks in all.
Trace sample(int n) {
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
    dump.blocks.push_back(b);
  }
  Result<Trace> t = build_trace(dump, "s.etdump");
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
  CHECK(std::get<double>(summary.rows[1][6]) == doctest::Approx(100));
}

}  // namespace
}  // namespace etkit::inspect
