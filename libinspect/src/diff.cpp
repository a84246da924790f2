#include "etkit/inspect/diff.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "etkit/inspect/event_table.h"

namespace etkit::inspect {

const char* diff_status_name(DiffStatus status) {
  switch (status) {
    case DiffStatus::Same: return "ok";
    case DiffStatus::Regression: return "regression";
    case DiffStatus::Improvement: return "improvement";
    case DiffStatus::OnlyA: return "only_a";
    case DiffStatus::OnlyB: return "only_b";
  }
  return "ok";
}

namespace {

using Key = std::tuple<std::string, int32_t, std::string>;

struct Samples {
  std::vector<double> durations;
  std::string op;
};

std::map<Key, Samples> collect(const TraceSelection& s) {
  std::map<Key, Samples> out;
  for (size_t i : s.events) {
    const TraceEvent& e = s.trace->events[i];
    Samples& samples =
        out[{s.trace->blocks[e.block].method, e.instruction, std::string(e.name)}];
    samples.durations.push_back(e.duration_ns);
    if (samples.op.empty()) samples.op = std::string(e.op);
  }
  for (auto& [key, samples] : out) std::sort(samples.durations.begin(), samples.durations.end());
  return out;
}

}  // namespace

DiffResult diff_traces(const TraceSelection& a, const TraceSelection& b,
                       const DiffOptions& options) {
  const std::map<Key, Samples> in_a = collect(a);
  const std::map<Key, Samples> in_b = collect(b);
  std::map<Key, DiffRow> rows;
  auto row_for = [&](const Key& key) -> DiffRow& {
    DiffRow& r = rows[key];
    std::tie(r.method, r.instruction, r.name) = key;
    return r;
  };
  for (const auto& [key, s] : in_a) {
    DiffRow& r = row_for(key);
    r.count_a = s.durations.size();
    r.p50_a = percentile(s.durations, 50);
    r.op = s.op;
  }
  for (const auto& [key, s] : in_b) {
    DiffRow& r = row_for(key);
    r.count_b = s.durations.size();
    r.p50_b = percentile(s.durations, 50);
    if (r.op.empty()) r.op = s.op;
  }
  DiffResult result;
  for (auto& [key, r] : rows) {
    r.delta = r.p50_b - r.p50_a;
    r.delta_pct = r.p50_a > 0 ? 100.0 * r.delta / r.p50_a : 0;
    if (r.count_b == 0) {
      r.status = DiffStatus::OnlyA;
      ++result.only_a;
    } else if (r.count_a == 0) {
      r.status = DiffStatus::OnlyB;
      ++result.only_b;
    } else if (std::fabs(r.delta) > options.min_time_ns &&
               (r.p50_a > 0 ? std::fabs(r.delta_pct) > options.threshold_pct : r.delta != 0)) {
      if (r.delta > 0) {
        r.status = DiffStatus::Regression;
        ++result.regressions;
      } else {
        r.status = DiffStatus::Improvement;
        ++result.improvements;
      }
    }
    result.rows.push_back(std::move(r));
  }
  return result;
}

Table diff_table(const DiffResult& result, TimeUnit unit, std::string title) {
  const int d = time_decimals(unit);
  Table t;
  t.title = std::move(title);
  t.unit = time_unit_name(unit);
  t.columns = {{"method", 0},  {"instruction", 0}, {"name", 0},  {"op", 0},
               {"count_a", 0}, {"count_b", 0},     {"p50_a", d}, {"p50_b", d},
               {"delta", d},   {"delta_pct", 1},   {"status", 0}};
  for (const DiffRow& r : result.rows) {
    std::vector<Cell> row;
    row.emplace_back(r.method);
    if (r.instruction >= 0) {
      row.emplace_back(static_cast<int64_t>(r.instruction));
    } else {
      row.emplace_back(std::monostate{});
    }
    row.emplace_back(r.name);
    row.emplace_back(r.op);
    row.emplace_back(static_cast<int64_t>(r.count_a));
    row.emplace_back(static_cast<int64_t>(r.count_b));
    const bool both = r.count_a > 0 && r.count_b > 0;
    row.emplace_back(r.count_a > 0 ? Cell(from_ns(r.p50_a, unit)) : Cell());
    row.emplace_back(r.count_b > 0 ? Cell(from_ns(r.p50_b, unit)) : Cell());
    row.emplace_back(both ? Cell(from_ns(r.delta, unit)) : Cell());
    row.emplace_back(both && r.p50_a > 0 ? Cell(r.delta_pct) : Cell());
    row.emplace_back(std::string(diff_status_name(r.status)));
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table diff_summary_table(const DiffResult& result) {
  Table t;
  t.title = "diff summary";
  t.columns = {{"regressions", 0}, {"improvements", 0}, {"only_a", 0}, {"only_b", 0},
               {"result", 0}};
  t.rows.push_back({static_cast<int64_t>(result.regressions),
                    static_cast<int64_t>(result.improvements), static_cast<int64_t>(result.only_a),
                    static_cast<int64_t>(result.only_b),
                    std::string(result.failed() ? "fail" : "pass")});
  return t;
}

Result<double> parse_duration_ns(std::string_view text) {
  auto bad = [&]() {
    return Error(ErrorCode::InvalidArgument,
                 "bad duration '%.*s': expected a number with a unit: ns, us, ms or s",
                 static_cast<int>(text.size()), text.data());
  };
  if (text == "0") return 0.0;
  size_t digits = 0;
  while (digits < text.size() &&
         ((text[digits] >= '0' && text[digits] <= '9') || text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) return bad();
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + digits, value);
  if (ec != std::errc() || end != text.data() + digits) return bad();
  Result<TimeUnit> unit = parse_time_unit(text.substr(digits));
  if (!unit.ok()) return bad();
  switch (*unit) {
    case TimeUnit::Ns: return value;
    case TimeUnit::Us: return value * 1e3;
    case TimeUnit::Ms: return value * 1e6;
    case TimeUnit::S: return value * 1e9;
  }
  return bad();
}

}  // namespace etkit::inspect
