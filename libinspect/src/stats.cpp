#include "etkit/inspect/stats.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "etkit/inspect/event_table.h"
#include "etkit/inspect/profiler_counters.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/inspect/operator_naming.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/op_shapes.h"

namespace etkit::inspect {

Result<GroupBy> parse_group_by(std::string_view text) {
  if (text == "name") return GroupBy::Name;
  if (text == "operator") return GroupBy::Operator;
  if (text == "debug-handle") return GroupBy::DebugHandle;
  if (text == "instruction") return GroupBy::Instruction;
  if (text == "shape") return GroupBy::Shape;
  return Error(ErrorCode::InvalidArgument,
               "unknown grouping '%.*s' (expected name, operator, instruction, debug-handle or "
               "shape)",
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

double GroupStats::gflops_per_s() const {
  // FLOPs per nanosecond are GFLOP/s.
  return count > 0 && flopped == count && total > 0 ? flops / total : -1;
}

double GroupStats::gbytes_per_s() const {
  return count > 0 && costed == count && total > 0 ? bytes / total : -1;
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

constexpr size_t kSlots = 4096;  // more than the distinct names of a big model's method

// By the key alone: a block's method string lives at another address in every block.
size_t slot_hash(const void* key, size_t size) {
  uint64_t h = reinterpret_cast<uintptr_t>(key) * 0x9e3779b97f4a7c15ULL;
  h ^= size * 0xc2b2ae3d27d4eb4fULL;
  return static_cast<size_t>(h >> 32) % kSlots;
}

// The order statistics and total of `d` (not empty; reordered), as `percentile` and a sum in
// ascending order give them on the sorted durations. When every duration is a whole number and
// their magnitudes sum below 2^53, every partial sum is exact in any order, so three selections
// replace the sort; otherwise (fractions, NaN, infinities) the durations are sorted.
void summarize(std::vector<double>& d, GroupStats& g) {
  constexpr double kExact = 9007199254740992.0;  // 2^53
  bool whole = true;
  double magnitude = 0, total = 0;
  for (double x : d) {
    whole = whole && x == std::trunc(x);
    magnitude += std::fabs(x);
    total += x;
  }
  if (!whole || !(magnitude < kExact)) {
    std::sort(d.begin(), d.end());
    g.min = d.front();
    g.max = d.back();
    g.p10 = percentile(d, 10);
    g.p50 = percentile(d, 50);
    g.p90 = percentile(d, 90);
    g.total = 0;
    for (double x : d) g.total += x;
    return;
  }
  g.total = total;
  const auto [lo, hi] = std::minmax_element(d.begin(), d.end());
  g.min = *lo;
  g.max = *hi;
  // Ranks in ascending order: each selection leaves the ranks above it to the right.
  const double last = static_cast<double>(d.size() - 1);
  size_t from = 0;
  auto at = [&](size_t rank) {
    if (rank >= from) {
      std::nth_element(d.begin() + static_cast<ptrdiff_t>(from),
                       d.begin() + static_cast<ptrdiff_t>(rank), d.end());
      from = rank + 1;
    }
    return d[rank];
  };
  auto select = [&](double p) {
    const double pos = p / 100.0 * last;
    const size_t r = static_cast<size_t>(std::floor(pos));
    const double a = at(r);
    const double b = at(std::min(r + 1, d.size() - 1));
    return a + (b - a) * (pos - static_cast<double>(r));
  };
  g.p10 = select(10);
  g.p50 = select(50);
  g.p90 = select(90);
}

}  // namespace

StatsAccumulator::StatsAccumulator(GroupBy by, bool mergeable, const DebugMap* map)
    : by_(by), mergeable_(mergeable), map_(map), slots_(kSlots) {}

size_t StatsAccumulator::group_of(const std::string& method, const void* key_id, size_t key_size,
                                  std::string_view key) {
  Slot& slot = slots_[slot_hash(key_id, key_size)];
  if (slot.epoch == epoch_ && slot.id == key_id && slot.size == key_size &&
      slot.method == &method) {
    return slot.group;
  }
  if (slot.group == SIZE_MAX || groups_[slot.group].key != key ||
      groups_[slot.group].method != method) {
    slot.group = find_or_add(method, key);
  }
  slot.id = key_id;
  slot.size = key_size;
  slot.method = &method;
  slot.epoch = epoch_;
  return slot.group;
}

void StatsAccumulator::add(const Trace& trace, const std::vector<size_t>& events) {
  if (events.empty()) return;
  ++epoch_;  // the slots' addresses are confirmed again for this trace and block
  const size_t lo = events.front();
  const size_t hi = events.back();
  if (by_ != GroupBy::Name) {
    selected_.assign(hi - lo + 1, 0);
    for (size_t i : events) selected_[i - lo] = 1;
  }
  // True for the outermost selected event of an instruction: it has an operator and no
  // enclosing event of the same instruction is selected.
  auto is_instruction_root = [&](const TraceEvent& e) {
    if (e.op.empty() || e.instruction < 0) return false;
    for (int32_t p = e.parent; p >= 0; p = trace.events[static_cast<size_t>(p)].parent) {
      const TraceEvent& up = trace.events[static_cast<size_t>(p)];
      if (up.instruction != e.instruction || up.chain != e.chain || up.op.empty()) break;
      const auto pi = static_cast<size_t>(p);
      if (pi >= lo && pi <= hi && selected_[pi - lo] != 0) return false;
    }
    return true;
  };
  char digits[16];
  std::string device_key;  // "[<instruction> ]device:<device>"
  constexpr size_t kDeviceBit = size_t{1} << 62;  // keeps device cache keys apart from others
  auto count = [&](size_t g, const TraceEvent& e) {
    Group& acc = groups_[g];
    acc.durations.push_back(e.duration_ns);
    acc.self += e.self_ns;
    if (mergeable_) acc.selfs.push_back(e.self_ns);
  };
  // The map's entry of an instruction, its cost and input shapes (cached per entry).
  const std::pair<OpCost, std::string> no_cost;
  auto cost_of = [&](const std::string& method, const TraceEvent& e)
      -> const std::pair<OpCost, std::string>& {
    if (map_ == nullptr) return no_cost;
    Result<const MethodDebugMap*> m = debug_map_method(*map_, method, trace.path);
    if (!m.ok()) return no_cost;
    const InstructionEntry* entry = (*m)->find_instruction(e.chain, e.instruction);
    if (entry == nullptr || entry->args.empty()) return no_cost;
    auto it = costs_.find(entry);
    if (it == costs_.end()) {
      size_t outputs = 1;
      if (const DelegateEntry* d = (*m)->find_delegate(e.chain, e.instruction);
          d != nullptr && d->num_outputs) {
        outputs = *d->num_outputs;
      }
      it = costs_.emplace(entry, std::pair{op_cost(*entry), input_shapes_text(*entry, outputs)})
               .first;
    }
    return it->second;
  };
  for (size_t i : events) {
    const TraceEvent& e = trace.events[i];
    const std::string& method = trace.blocks[e.block].method;
    size_t g = 0;
    if (e.device && by_ != GroupBy::Name) {
      // Device time stays apart from the host's (see the file comment of stats.h).
      if (by_ == GroupBy::DebugHandle || by_ == GroupBy::Shape) continue;
      if (by_ == GroupBy::Instruction && e.instruction < 0) continue;
      device_key.clear();
      if (by_ == GroupBy::Instruction) device_key.append(std::to_string(e.instruction)).append(" ");
      const size_t label = device_key.size();
      device_key.append("device:").append(event_device(e));
      const size_t id = by_ == GroupBy::Instruction ? static_cast<size_t>(e.instruction) + 1
                                                    : e.name.size();
      g = group_of(method, e.name.data(), id | kDeviceBit, device_key);
      Group& acc = groups_[g];
      acc.device = true;
      if (by_ == GroupBy::Instruction && acc.op.empty()) acc.op = device_key.substr(label);
      count(g, e);
      continue;
    }
    if (by_ == GroupBy::DebugHandle) {
      if (map_ == nullptr) continue;
      if (!e.delegate) {
        if (!is_instruction_root(e)) continue;
        Result<const MethodDebugMap*> m = debug_map_method(*map_, method, trace.path);
        if (!m.ok()) continue;
        const InstructionEntry* entry = (*m)->find_instruction(e.chain, e.instruction);
        if (entry == nullptr || entry->kind == InstructionKind::Delegate) continue;
      }
      for (uint32_t h : event_debug_handles(trace, e, *map_)) {
        auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), h);
        g = group_of(method, nullptr, static_cast<size_t>(h) + 1,
                     std::string_view(digits, static_cast<size_t>(end - digits)));
        Group& acc = groups_[g];
        if (acc.node.empty()) {
          if (Result<const MethodDebugMap*> m = debug_map_method(*map_, method, trace.path);
              m.ok()) {
            if (auto it = (*m)->nodes.find(h); it != (*m)->nodes.end()) {
              acc.node = it->second.name;
              acc.op = it->second.op;
            }
          }
        }
        count(g, e);
      }
      continue;
    }
    if (by_ == GroupBy::Name) {
      g = group_of(method, e.name.data(), e.name.size(), e.name);
      groups_[g].device = e.device;
    } else {
      if (!is_instruction_root(e)) continue;
      if (by_ == GroupBy::Shape) {
        const std::string& shapes = cost_of(method, e).second;
        g = find_or_add(method, std::string(e.op) + " " + shapes);
        if (groups_[g].op.empty()) {
          groups_[g].op = std::string(e.op);
          groups_[g].shapes = shapes;
        }
      } else if (by_ == GroupBy::Operator) {
        g = group_of(method, e.op.data(), e.op.size(), e.op);
      } else {
        auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), e.instruction);
        // The instruction itself is the address-free part of the cache key.
        g = group_of(method, nullptr, static_cast<size_t>(e.instruction) + 1,
                     std::string_view(digits, static_cast<size_t>(end - digits)));
      }
    }
    Group& acc = groups_[g];
    acc.durations.push_back(e.duration_ns);
    acc.self += e.self_ns;
    if (mergeable_) acc.selfs.push_back(e.self_ns);
    if (by_ == GroupBy::Instruction && acc.op.empty()) acc.op = std::string(e.op);
    if (by_ != GroupBy::Name) {
      const OpCost& cost = cost_of(method, e).first;
      if (cost.known) {
        ++acc.costed;
        acc.bytes += cost.bytes;
        if (cost.flops) {
          ++acc.flopped;
          acc.flops += *cost.flops;
        }
      }
    }
  }
  // Traced time per method: outermost events of every block that has a selected event.
  size_t last_block = SIZE_MAX;
  for (size_t i : events) {
    const size_t b = trace.events[i].block;
    if (b == last_block) continue;
    last_block = b;
    const TraceBlock& block = trace.blocks[b];
    MethodTime& time = totals_[block.method];
    ++time.blocks;
    for (size_t k = block.first_event; k < block.first_event + block.num_events; ++k) {
      if (trace.events[k].parent >= 0 || trace.events[k].device) continue;
      time.total += trace.events[k].duration_ns;
      if (mergeable_) time.roots.push_back(trace.events[k].duration_ns);
    }
  }
}

size_t StatsAccumulator::find_or_add(const std::string& method, std::string_view key) {
  std::pair<std::string, std::string> id{method, std::string(key)};
  auto it = index_.find(id);
  if (it == index_.end()) {
    Group g;
    g.method = id.first;
    g.key = id.second;
    it = index_.emplace(std::move(id), groups_.size()).first;
    groups_.push_back(std::move(g));
  }
  return it->second;
}

void StatsAccumulator::merge(const StatsAccumulator& other) {
  for (const Group& from : other.groups_) {
    Group& to = groups_[find_or_add(from.method, from.key)];
    to.durations.append(from.durations);
    for (double x : from.selfs) to.self += x;
    if (mergeable_) to.selfs.insert(to.selfs.end(), from.selfs.begin(), from.selfs.end());
    if (to.op.empty()) to.op = from.op;
    if (to.node.empty()) to.node = from.node;
    if (to.shapes.empty()) to.shapes = from.shapes;
    to.device = to.device || from.device;
    to.costed += from.costed;
    to.flopped += from.flopped;
    to.flops += from.flops;
    to.bytes += from.bytes;
  }
  for (const auto& [method, from] : other.totals_) {
    MethodTime& to = totals_[method];
    to.blocks += from.blocks;
    for (double x : from.roots) to.total += x;
    if (mergeable_) to.roots.insert(to.roots.end(), from.roots.begin(), from.roots.end());
  }
}

std::vector<GroupStats> StatsAccumulator::finish(SortKey sort) {
  const GroupBy by = by_;
  std::vector<GroupStats> out;
  out.reserve(groups_.size());
  std::vector<double> d;  // a group's durations, in one piece
  size_t most = 0;
  for (const Group& acc : groups_) most = std::max(most, acc.durations.size());
  d.reserve(most);
  for (Group& acc : groups_) {
    d.clear();
    acc.durations.copy_to(d);
    GroupStats g;
    g.method = acc.method;
    g.key = acc.key;
    g.op = acc.op;
    g.node = acc.node;
    g.device = acc.device;
    g.shapes = acc.shapes;
    g.costed = acc.costed;
    g.flopped = acc.flopped;
    g.flops = acc.flops;
    g.bytes = acc.bytes;
    g.count = d.size();
    summarize(d, g);
    g.mean = g.total / static_cast<double>(d.size());
    g.self = acc.self;
    auto t = totals_.find(g.method);
    const double method_total = t != totals_.end() ? t->second.total : 0;
    g.iterations = t != totals_.end() ? t->second.blocks : 0;
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
    if (by == GroupBy::Instruction || by == GroupBy::DebugHandle) {
      const long ka = std::stol(a.key);
      const long kb = std::stol(b.key);
      if (ka != kb) return ka < kb;  // then an instruction's host row before its device rows
    }
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

Error accumulate_stats(TraceReader& reader, EventSelector* selector, OperatorNamer* namer,
                       StatsAccumulator& by, StatsAccumulator* ops,
                       CounterAccumulator* counters, const MethodMap* methods,
                       const SelectedBlockVisitor& visit) {
  Trace trace = reader.skeleton();
  std::vector<size_t> selected;
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    const bool use = selector != nullptr && selector->block_selected(trace, b);
    if (!use && namer == nullptr) continue;
    // Statistics read events only; a namer also checks the values' instructions against the
    // program, so it gets them.
    if (namer != nullptr) {
      reader.rejoin_block(b, trace);
      ETKIT_TRY(namer->apply(trace));
    } else {
      reader.rejoin_events(b, trace);
    }
    if (!use) continue;
    selected.clear();
    selector->select_block(trace, b, selected);
    if (visit) visit(trace, b, selected);
    // Counted under the method's name in the map, once named and selected by its own.
    std::string own;
    if (methods != nullptr) {
      own = trace.blocks[b].method;
      trace.blocks[b].method = method_in_a(*methods, own);
    }
    by.add(trace, selected);
    if (ops != nullptr) ops->add(trace, selected);
    if (counters != nullptr) counters->add(trace, selected);
    if (methods != nullptr) trace.blocks[b].method = std::move(own);
  }
  return Error();
}

std::vector<GroupStats> compute_stats(const std::vector<TraceSelection>& sources, GroupBy by,
                                      SortKey sort) {
  StatsAccumulator acc(by);
  for (const TraceSelection& s : sources) acc.add(*s.trace, s.events);
  return acc.finish(sort);
}

Table stats_table(const std::vector<GroupStats>& stats, GroupBy by, TimeUnit unit, size_t top,
                  std::string title) {
  const int d = time_decimals(unit);
  Table t;
  t.name = "stats";
  t.title = std::move(title);
  t.unit = time_unit_name(unit);
  const char* key_name = by == GroupBy::Name          ? "name"
                         : by == GroupBy::Operator    ? "operator"
                         : by == GroupBy::DebugHandle ? "debug_handle"
                         : by == GroupBy::Shape       ? "operator"
                                                      : "instruction";
  t.columns = {{"method", 0}, {key_name, 0}};
  if (by == GroupBy::Shape) t.columns.push_back({"input_shapes", 0});
  if (by == GroupBy::DebugHandle) t.columns.push_back({"node", 0});
  if (by == GroupBy::Instruction || by == GroupBy::DebugHandle) t.columns.push_back({"op", 0});
  for (const char* c : {"count"}) t.columns.push_back({c, 0});
  for (const char* c : {"min", "p10", "p50", "p90", "mean", "max", "total", "self"}) {
    t.columns.push_back({c, d, true});
  }
  t.columns.push_back({"share", 1});
  bool with_cost = false;
  for (const GroupStats& g : stats) with_cost = with_cost || g.costed > 0;
  if (with_cost) {
    t.columns.push_back({"flops", 0});
    t.columns.push_back({"bytes", 0});
    // Rates span orders of magnitude (a toy kernel, a GEMM): significant digits.
    t.columns.push_back({"gflop_per_s", kSignificantDigits});
    t.columns.push_back({"gb_per_s", kSignificantDigits});
  }
  // Per call: what a hand count of one call gives.
  auto per_call = [](double x, size_t n, bool known) -> Cell {
    if (!known || n == 0) return std::monostate{};
    return x / static_cast<double>(n);
  };
  auto rate = [](double r) -> Cell {
    if (r < 0) return std::monostate{};
    return r;
  };
  const size_t n = top == 0 ? stats.size() : std::min(top, stats.size());
  for (size_t i = 0; i < n; ++i) {
    const GroupStats& g = stats[i];
    std::vector<Cell> row;
    row.emplace_back(g.method);
    if (by == GroupBy::Instruction || by == GroupBy::DebugHandle) {
      row.emplace_back(static_cast<int64_t>(std::stol(g.key)));
      if (by == GroupBy::DebugHandle) row.emplace_back(g.node);
      row.emplace_back(g.op);
    } else if (by == GroupBy::Shape) {
      row.emplace_back(g.op);
      if (g.shapes.empty()) {
        row.emplace_back(std::monostate{});
      } else {
        row.emplace_back(g.shapes);
      }
    } else {
      row.emplace_back(g.key);
    }
    row.emplace_back(static_cast<int64_t>(g.count));
    for (double x : {g.min, g.p10, g.p50, g.p90, g.mean, g.max, g.total, g.self}) {
      row.emplace_back(from_ns(x, unit));
    }
    row.emplace_back(g.share);
    if (with_cost) {
      row.push_back(per_call(g.flops, g.count, g.count > 0 && g.flopped == g.count));
      row.push_back(per_call(g.bytes, g.count, g.count > 0 && g.costed == g.count));
      row.push_back(rate(g.gflops_per_s()));
      row.push_back(rate(g.gbytes_per_s()));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table operator_summary_table(const std::vector<TraceSelection>& sources, TimeUnit unit,
                             std::string title) {
  return operator_summary_table(compute_stats(sources, GroupBy::Operator, SortKey::Total), unit,
                                std::move(title));
}

Table operator_summary_table(std::vector<GroupStats> ops, TimeUnit unit, std::string title) {
  std::erase_if(ops, [](const GroupStats& g) { return g.device; });
  std::map<std::string, double> op_time;  // per method
  std::map<std::string, double> op_flops;  // per method, of the operators with a FLOP count
  bool with_flops = false;
  for (const GroupStats& g : ops) {
    op_time[g.method] += g.total;
    if (g.count > 0 && g.flopped == g.count) {
      op_flops[g.method] += g.flops;
      with_flops = true;
    }
  }
  const int d = time_decimals(unit);
  Table t;
  t.name = "operator_summary";
  t.title = std::move(title);
  t.unit = time_unit_name(unit);
  t.columns = {{"method", 0},       {"operator", 0},  {"calls", 0},
               {"per_iteration", 2}, {"total", d, true}, {"mean", d, true},
               {"percent", 1},      {"cumulative", 1}};
  if (with_flops) {
    t.columns.push_back({"flops_percent", 1});
    t.columns.push_back({"gflop_per_s", kSignificantDigits});
  }
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
    const double per_iteration =
        g.iterations > 0 ? static_cast<double>(g.count) / static_cast<double>(g.iterations) : 0;
    std::vector<Cell> row = {g.method, g.key, static_cast<int64_t>(g.count), per_iteration,
                             from_ns(g.total, unit), from_ns(g.mean, unit), pct, cum};
    if (with_flops) {
      const double all_flops = op_flops[g.method];
      if (g.count > 0 && g.flopped == g.count && all_flops > 0) {
        row.emplace_back(100.0 * g.flops / all_flops);
      } else {
        row.emplace_back(std::monostate{});
      }
      const double rate = g.gflops_per_s();
      row.emplace_back(rate < 0 ? Cell(std::monostate{}) : Cell(rate));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table device_summary_table(std::vector<GroupStats> ops, TimeUnit unit, std::string title) {
  std::map<std::string, double> host_time;  // per method: the operator summary's 100%
  for (const GroupStats& g : ops) {
    if (!g.device) host_time[g.method] += g.total;
  }
  std::erase_if(ops, [](const GroupStats& g) { return !g.device; });
  std::sort(ops.begin(), ops.end(), [](const GroupStats& a, const GroupStats& b) {
    if (a.method != b.method) return a.method < b.method;
    if (a.total != b.total) return a.total > b.total;
    return a.key < b.key;
  });
  const int d = time_decimals(unit);
  Table t;
  t.name = "device_summary";
  t.title = std::move(title);
  t.unit = time_unit_name(unit);
  t.columns = {{"method", 0},      {"device", 0},     {"events", 0},
               {"total", d, true}, {"mean", d, true}, {"percent", 1}};
  constexpr std::string_view kLabel = "device:";
  for (const GroupStats& g : ops) {
    const double host = host_time[g.method];
    const std::string device =
        g.key.compare(0, kLabel.size(), kLabel) == 0 ? g.key.substr(kLabel.size()) : g.key;
    t.rows.push_back({g.method, device, static_cast<int64_t>(g.count), from_ns(g.total, unit),
                      from_ns(g.mean, unit), host > 0 ? 100.0 * g.total / host : 0.0});
  }
  return t;
}

}  // namespace etkit::inspect
