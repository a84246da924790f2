#include "etkit/inspect/stats.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "etkit/inspect/event_table.h"

namespace etkit::inspect {

Result<GroupBy> parse_group_by(std::string_view text) {
  if (text == "name") return GroupBy::Name;
  if (text == "operator") return GroupBy::Operator;
  if (text == "instruction") return GroupBy::Instruction;
  return Error(ErrorCode::InvalidArgument,
               "unknown grouping '%.*s' (expected name, operator or instruction)",
               static_cast<int>(text.size()), text.data());
}

Result<SortKey> parse_sort_key(std::string_view text) {
  static const std::pair<const char*, SortKey> kKeys[] = {
      {"total", SortKey::Total}, {"self", SortKey::Self}, {"count", SortKey::Count},
      {"min", SortKey::Min},     {"p50", SortKey::P50},   {"mean", SortKey::Mean},
      {"max", SortKey::Max},     {"key", SortKey::Key}};
  for (const auto& [name, key] : kKeys) {
    if (text == name) return key;
  }
  return Error(ErrorCode::InvalidArgument,
               "unknown sort key '%.*s' (expected total, self, count, min, p50, mean, max or key)",
               static_cast<int>(text.size()), text.data());
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double pos = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

namespace {

// True for the outermost selected event of an instruction: it has an operator and no enclosing
// event of the same instruction is selected.
bool is_instruction_root(const Trace& trace, const std::vector<bool>& selected,
                         const TraceEvent& e) {
  if (e.op.empty() || e.instruction < 0) return false;
  for (int32_t p = e.parent; p >= 0; p = trace.events[static_cast<size_t>(p)].parent) {
    const TraceEvent& up = trace.events[static_cast<size_t>(p)];
    if (up.instruction != e.instruction || up.chain != e.chain || up.op.empty()) break;
    if (selected[static_cast<size_t>(p)]) return false;
  }
  return true;
}

// Traced time per method: outermost events of every block that has a selected event.
std::map<std::string, double> method_totals(const std::vector<TraceSelection>& sources) {
  std::map<std::string, double> totals;
  for (const TraceSelection& s : sources) {
    std::vector<bool> seen(s.trace->blocks.size(), false);
    for (size_t i : s.events) seen[s.trace->events[i].block] = true;
    for (size_t b = 0; b < seen.size(); ++b) {
      if (!seen[b]) continue;
      const TraceBlock& block = s.trace->blocks[b];
      double& total = totals[block.method];
      for (size_t i = block.first_event; i < block.first_event + block.num_events; ++i) {
        if (s.trace->events[i].parent < 0) total += s.trace->events[i].duration_ns;
      }
    }
  }
  return totals;
}

}  // namespace

std::vector<GroupStats> compute_stats(const std::vector<TraceSelection>& sources, GroupBy by,
                                      SortKey sort) {
  struct Acc {
    std::vector<double> durations;
    double self = 0;
    std::string op;
  };
  std::map<std::pair<std::string, std::string>, Acc> groups;
  for (const TraceSelection& s : sources) {
    std::vector<bool> selected;
    if (by != GroupBy::Name) {
      selected.assign(s.trace->events.size(), false);
      for (size_t i : s.events) selected[i] = true;
    }
    for (size_t i : s.events) {
      const TraceEvent& e = s.trace->events[i];
      const std::string& method = s.trace->blocks[e.block].method;
      std::string key;
      if (by == GroupBy::Name) {
        key = e.name;
      } else {
        if (!is_instruction_root(*s.trace, selected, e)) continue;
        key = by == GroupBy::Operator ? e.op : std::to_string(e.instruction);
      }
      Acc& acc = groups[{method, key}];
      acc.durations.push_back(e.duration_ns);
      acc.self += e.self_ns;
      if (by == GroupBy::Instruction && acc.op.empty()) acc.op = e.op;
    }
  }
  const std::map<std::string, double> totals = method_totals(sources);
  std::vector<GroupStats> out;
  out.reserve(groups.size());
  for (auto& [id, acc] : groups) {
    std::vector<double>& d = acc.durations;
    std::sort(d.begin(), d.end());
    GroupStats g;
    g.method = id.first;
    g.key = id.second;
    g.op = acc.op;
    g.count = d.size();
    g.min = d.front();
    g.max = d.back();
    g.p10 = percentile(d, 10);
    g.p50 = percentile(d, 50);
    g.p90 = percentile(d, 90);
    for (double x : d) g.total += x;
    g.mean = g.total / static_cast<double>(d.size());
    g.self = acc.self;
    const double method_total = totals.count(g.method) ? totals.at(g.method) : 0;
    const double part = by == GroupBy::Name ? g.self : g.total;
    g.share = method_total > 0 ? 100.0 * part / method_total : 0;
    out.push_back(std::move(g));
  }
  auto value = [sort](const GroupStats& g) -> double {
    switch (sort) {
      case SortKey::Total: return g.total;
      case SortKey::Self: return g.self;
      case SortKey::Count: return static_cast<double>(g.count);
      case SortKey::Min: return g.min;
      case SortKey::P50: return g.p50;
      case SortKey::Mean: return g.mean;
      case SortKey::Max: return g.max;
      case SortKey::Key: return 0;
    }
    return 0;
  };
  auto key_less = [by](const GroupStats& a, const GroupStats& b) {
    if (a.method != b.method) return a.method < b.method;
    if (by == GroupBy::Instruction) return std::stol(a.key) < std::stol(b.key);
    return a.key < b.key;
  };
  // (method, key) is unique, so this is a total order: std::sort is deterministic. (Not
  // std::stable_sort: its temporary buffer comes from nothrow operator new.)
  std::sort(out.begin(), out.end(), [&](const GroupStats& a, const GroupStats& b) {
    const double va = value(a);
    const double vb = value(b);
    if (va != vb) return va > vb;
    return key_less(a, b);
  });
  return out;
}

Table stats_table(const std::vector<GroupStats>& stats, GroupBy by, TimeUnit unit, size_t top,
                  std::string title) {
  const int d = time_decimals(unit);
  Table t;
  t.title = std::move(title);
  t.unit = time_unit_name(unit);
  const char* key_name = by == GroupBy::Name ? "name" : by == GroupBy::Operator ? "operator"
                                                                                 : "instruction";
  t.columns = {{"method", 0}, {key_name, 0}};
  if (by == GroupBy::Instruction) t.columns.push_back({"op", 0});
  for (const char* c : {"count"}) t.columns.push_back({c, 0});
  for (const char* c : {"min", "p10", "p50", "p90", "mean", "max", "total", "self"}) {
    t.columns.push_back({c, d});
  }
  t.columns.push_back({"share", 1});
  const size_t n = top == 0 ? stats.size() : std::min(top, stats.size());
  for (size_t i = 0; i < n; ++i) {
    const GroupStats& g = stats[i];
    std::vector<Cell> row;
    row.emplace_back(g.method);
    if (by == GroupBy::Instruction) {
      row.emplace_back(static_cast<int64_t>(std::stol(g.key)));
      row.emplace_back(g.op);
    } else {
      row.emplace_back(g.key);
    }
    row.emplace_back(static_cast<int64_t>(g.count));
    for (double x : {g.min, g.p10, g.p50, g.p90, g.mean, g.max, g.total, g.self}) {
      row.emplace_back(from_ns(x, unit));
    }
    row.emplace_back(g.share);
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table operator_summary_table(const std::vector<TraceSelection>& sources, TimeUnit unit,
                             std::string title) {
  std::vector<GroupStats> ops = compute_stats(sources, GroupBy::Operator, SortKey::Total);
  std::map<std::string, double> op_time;  // per method
  for (const GroupStats& g : ops) op_time[g.method] += g.total;
  const int d = time_decimals(unit);
  Table t;
  t.title = std::move(title);
  t.unit = time_unit_name(unit);
  t.columns = {{"method", 0}, {"operator", 0}, {"calls", 0}, {"total", d},
               {"mean", d},   {"percent", 1},  {"cumulative", 1}};
  // By method (ascending), then total descending, then operator.
  std::sort(ops.begin(), ops.end(), [](const GroupStats& a, const GroupStats& b) {
    if (a.method != b.method) return a.method < b.method;
    if (a.total != b.total) return a.total > b.total;
    return a.key < b.key;
  });
  std::map<std::string, double> cumulative;
  for (const GroupStats& g : ops) {
    const double all = op_time[g.method];
    const double pct = all > 0 ? 100.0 * g.total / all : 0;
    double& cum = cumulative[g.method];
    cum += pct;
    t.rows.push_back({g.method, g.key, static_cast<int64_t>(g.count), from_ns(g.total, unit),
                      from_ns(g.mean, unit), pct, cum});
  }
  return t;
}

}  // namespace etkit::inspect
