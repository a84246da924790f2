#include "etkit/inspect/diff.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <span>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "etkit/inspect/event_table.h"
#include "etkit/inspect/operator_naming.h"
#include "etkit/inspect/report_stream.h"
#include "selected_blocks.h"

namespace etkit::inspect {

const char* diff_status_name(DiffStatus status) {
  switch (status) {
    case DiffStatus::Same: return "ok";
    case DiffStatus::Regression: return "regression";
    case DiffStatus::Improvement: return "improvement";
    case DiffStatus::OnlyA: return "only_a";
    case DiffStatus::OnlyB: return "only_b";
    case DiffStatus::OpChanged: return "op_changed";
    case DiffStatus::FewSamples: return "few_samples";
  }
  return "ok";
}

Result<DiffStatistic> parse_diff_statistic(std::string_view text) {
  if (text == "median") return DiffStatistic::Median;
  if (text == "mean") return DiffStatistic::Mean;
  if (text == "min") return DiffStatistic::Min;
  return Error(ErrorCode::InvalidArgument,
               "unknown statistic '%.*s' (expected median, mean or min)",
               static_cast<int>(text.size()), text.data());
}

const char* diff_statistic_column(DiffStatistic statistic) {
  switch (statistic) {
    case DiffStatistic::Median: return "p50";
    case DiffStatistic::Mean: return "mean";
    case DiffStatistic::Min: return "min";
  }
  return "p50";
}

namespace {

// An event matched by name: method (A's name), instruction, name.
using Key = std::tuple<std::string, int32_t, std::string>;
// A debug handle of a method (A's name).
using Handle = std::pair<std::string, uint32_t>;

struct Samples {
  std::vector<double> durations;
  std::string op;
};

// One side's events: by name (ordered by key, each key once), and (matching by handle) each
// handle event's handles and time.
struct Side {
  std::vector<std::pair<Key, Samples>> by_name;
  struct HandleEvent {
    std::string method;  // A's name
    uint32_t block = 0;
    std::vector<uint32_t> handles;
    double duration = 0;
    std::string op;
  };
  std::vector<HandleEvent> handle_events;
};

// Whether `e` is the outermost selected event of its instruction.
bool is_root(const Trace& trace, const TraceEvent& e, const std::vector<bool>& selected) {
  for (int32_t p = e.parent; p >= 0; p = trace.events[static_cast<size_t>(p)].parent) {
    const TraceEvent& up = trace.events[static_cast<size_t>(p)];
    if (up.instruction != e.instruction || up.chain != e.chain) break;
    if (selected[static_cast<size_t>(p)]) return false;
  }
  return true;
}

Side collect(const TraceSelection& s, const MethodMap& methods, const DebugMap* map) {
  Side side;
  const Trace& trace = *s.trace;
  std::vector<bool> selected;
  if (map != nullptr) {
    selected.assign(trace.events.size(), false);
    for (size_t i : s.events) selected[i] = true;
  }
  std::map<Key, Samples> by_name;
  for (size_t i : s.events) {
    const TraceEvent& e = trace.events[i];
    const std::string& method = method_in_a(methods, trace.blocks[e.block].method);
    if (map != nullptr && !e.device && e.instruction >= 0) {
      // An instruction the map names handles for is matched by handle: its outermost event
      // (a kernel's) or its delegate events (a DelegateCall's); the rest of it is left out.
      const InstructionEntry* entry = nullptr;
      if (Result<const MethodDebugMap*> m = debug_map_method(*map, trace.blocks[e.block].method, "");
          m.ok()) {
        entry = (*m)->find_instruction(e.chain, e.instruction);
      }
      const bool delegate_call = entry != nullptr && entry->kind == InstructionKind::Delegate;
      if (entry != nullptr && (delegate_call || !entry->debug_handles.empty())) {
        const bool counted = delegate_call ? e.delegate : !e.delegate && is_root(trace, e, selected);
        if (!counted) continue;
        const std::span<const uint32_t> handles = event_debug_handles(trace, e, *map);
        if (!handles.empty()) {
          side.handle_events.push_back({method, e.block, {handles.begin(), handles.end()},
                                        e.duration_ns, std::string(e.delegate ? e.name : e.op)});
          continue;
        }
        if (!delegate_call) continue;  // a kernel's handles were checked non-empty above
        // A delegate event the map names no handle for: matched by name below.
      }
    }
    Samples& samples = by_name[{method, e.instruction, std::string(e.name)}];
    samples.durations.push_back(e.duration_ns);
    if (samples.op.empty()) samples.op = std::string(e.op);
  }
  side.by_name.reserve(by_name.size());
  for (auto& [key, samples] : by_name) {
    std::sort(samples.durations.begin(), samples.durations.end());
    side.by_name.emplace_back(key, std::move(samples));
  }
  return side;
}

// One side's events by name, read from `reader` one block at a time: what `collect` gives for
// the selected events of the joined trace without a map. Events come in the joined trace's order
// (blocks in file order, each block's in start order), so each key's durations and first
// operator are the same.
class StreamedSide {
 public:
  StreamedSide(const Trace& skeleton, const MethodMap& methods) {
    method_of_.reserve(skeleton.blocks.size());
    for (const TraceBlock& block : skeleton.blocks) {
      const std::string& method = method_in_a(methods, block.method);
      auto it = std::find(methods_.begin(), methods_.end(), method);
      if (it == methods_.end()) it = methods_.insert(methods_.end(), method);
      method_of_.push_back(static_cast<uint32_t>(it - methods_.begin()));
    }
    previous_.resize(methods_.size());
  }

  // Adds the events `selected` of block `b` of `trace` (the block alone).
  void add(const Trace& trace, size_t b, const std::vector<size_t>& selected) {
    const uint32_t method = method_of_[b];
    // A method's blocks usually repeat the events of the one before: the group of the event at
    // the same position there is tried first.
    std::vector<uint32_t>& before = previous_[method];
    current_.clear();
    for (size_t k = 0; k < selected.size(); ++k) {
      const TraceEvent& e = trace.events[selected[k]];
      // Names are interned (equal names, one address) in the reader's one string table; an
      // empty name may have no address, so all empty names share the null one.
      const LocalKey key{e.name.empty() ? nullptr : e.name.data(), e.name.size(), method,
                         e.instruction};
      uint32_t g;
      if (k < before.size() && groups_[before[k]].key == key) {
        g = before[k];
      } else {
        auto [it, added] = index_.try_emplace(key, static_cast<uint32_t>(groups_.size()));
        if (added) groups_.push_back({key, std::string(e.name), {}});
        g = it->second;
      }
      current_.push_back(g);
      Samples& samples = groups_[g].samples;
      samples.durations.push_back(e.duration_ns);
      if (samples.op.empty() && !e.op.empty()) samples.op = std::string(e.op);
    }
    before.swap(current_);
  }

  // The samples by key, as `collect` gives them (ordered by key, each key's durations sorted):
  // the groups sorted by key once, not inserted into a map of keys one by one.
  Side finish() {
    std::vector<uint32_t> order(groups_.size());
    for (size_t g = 0; g < order.size(); ++g) order[g] = static_cast<uint32_t>(g);
    // By key (method as A names it, instruction, name), as a std::map of `Key` would order them.
    std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
      const Group& gx = groups_[x];
      const Group& gy = groups_[y];
      // methods_ holds each name once: different indices are different names.
      if (gx.key.method != gy.key.method) {
        return methods_[gx.key.method] < methods_[gy.key.method];
      }
      if (gx.key.instruction != gy.key.instruction) return gx.key.instruction < gy.key.instruction;
      return gx.name < gy.name;
    });
    Side side;
    side.by_name.reserve(order.size());
    for (uint32_t g : order) {
      Group& group = groups_[g];
      Key key{methods_[group.key.method], group.key.instruction, std::move(group.name)};
      std::vector<double>& durations = group.samples.durations;
      if (!side.by_name.empty() && side.by_name.back().first == key) {
        // One name interned twice (it should not be): one key, its samples together.
        Samples& kept = side.by_name.back().second;
        kept.durations.insert(kept.durations.end(), durations.begin(), durations.end());
        std::sort(kept.durations.begin(), kept.durations.end());
        if (kept.op.empty()) kept.op = std::move(group.samples.op);
        continue;
      }
      std::sort(durations.begin(), durations.end());
      side.by_name.emplace_back(std::move(key), std::move(group.samples));
    }
    groups_.clear();
    index_.clear();
    return side;
  }

 private:
  struct LocalKey {
    const char* name = nullptr;
    size_t size = 0;
    uint32_t method = 0;  // index into methods_
    int32_t instruction = -1;
    bool operator==(const LocalKey&) const = default;
  };
  struct LocalKeyHash {
    size_t operator()(const LocalKey& k) const {
      uint64_t h = reinterpret_cast<uintptr_t>(k.name) * 0x9e3779b97f4a7c15ULL;
      h ^= (static_cast<uint64_t>(k.method) << 32 | static_cast<uint32_t>(k.instruction)) +
           0x7f4a7c15ULL + (h << 6) + (h >> 2);
      h ^= k.size * 0xc2b2ae3d27d4eb4fULL;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  struct Group {
    LocalKey key;
    std::string name;
    Samples samples;
  };
  std::vector<std::string> methods_;  // as A names them
  std::vector<uint32_t> method_of_;   // of each block
  std::vector<Group> groups_;
  std::unordered_map<LocalKey, uint32_t, LocalKeyHash> index_;
  std::vector<std::vector<uint32_t>> previous_;  // per method: the groups of its last block
  std::vector<uint32_t> current_;
};

Result<Side> collect_streamed(TraceReader& reader, const EventSelection& selection,
                              const MethodMap& methods) {
  ETKIT_ASSIGN_OR_RETURN(EventSelector selector, EventSelector::make(selection));
  Trace trace = reader.skeleton();
  StreamedSide side(trace, methods);
  std::vector<size_t> selected;
  for_each_selected_block(reader, selector, trace, selected, BlockValues::Skipped,
                          [&](size_t b) { side.add(trace, b, selected); });
  return side.finish();
}

double statistic_of(const std::vector<double>& sorted, DiffStatistic statistic) {
  switch (statistic) {
    case DiffStatistic::Median: return percentile(sorted, 50);
    case DiffStatistic::Mean: {
      double sum = 0;
      for (double d : sorted) sum += d;
      return sum / static_cast<double>(sorted.size());
    }
    case DiffStatistic::Min: return sorted.front();
  }
  return percentile(sorted, 50);
}

// Union-find over the handles of both sides: handles one event stands for together are one
// group.
class HandleGroups {
 public:
  void join(const std::string& method, const std::vector<uint32_t>& handles) {
    for (uint32_t h : handles) parent_.try_emplace({method, h}, Handle{method, h});
    for (size_t k = 1; k < handles.size(); ++k) {
      const Handle x = find({method, handles[0]});
      const Handle y = find({method, handles[k]});
      if (x != y) parent_[std::max(x, y)] = std::min(x, y);  // the smallest handle leads
    }
  }
  Handle find(Handle h) {
    while (parent_.at(h) != h) h = parent_.at(h) = parent_.at(parent_.at(h));
    return h;
  }
  // Every handle of each group, ascending, by the group's leader.
  std::map<Handle, std::vector<uint32_t>> groups() {
    std::map<Handle, std::vector<uint32_t>> out;
    for (const auto& [h, p] : parent_) out[find(h)].push_back(h.second);
    return out;
  }

 private:
  std::map<Handle, Handle> parent_;
};

// Per group leader: the samples (one per block, the sum of the group's events there) and the
// operators, in order of first appearance.
std::map<Handle, Samples> group_samples(const Side& side, HandleGroups& groups) {
  std::map<Handle, std::map<uint32_t, double>> per_block;
  std::map<Handle, Samples> out;
  for (const Side::HandleEvent& e : side.handle_events) {
    const Handle leader = groups.find({e.method, e.handles[0]});
    per_block[leader][e.block] += e.duration;
    std::string& ops = out[leader].op;
    if (!e.op.empty() && ("," + ops + ",").find("," + e.op + ",") == std::string::npos) {
      ops += (ops.empty() ? "" : ",") + e.op;
    }
  }
  for (auto& [leader, blocks] : per_block) {
    std::vector<double>& d = out[leader].durations;
    for (const auto& [block, sum] : blocks) d.push_back(sum);
    std::sort(d.begin(), d.end());
  }
  return out;
}

// Fills the statistics of `r` from both sides' samples (either may be null) and judges it.
void judge(DiffRow& r, const Samples* a, const Samples* b, bool check_op,
           const DiffOptions& options, DiffResult& result) {
  if (a != nullptr) {
    r.count_a = a->durations.size();
    r.stat_a = statistic_of(a->durations, options.statistic);
    r.op = a->op;
  }
  if (b != nullptr) {
    r.count_b = b->durations.size();
    r.stat_b = statistic_of(b->durations, options.statistic);
    r.op_b = b->op;
  }
  r.delta = r.stat_b - r.stat_a;
  r.delta_pct = r.stat_a > 0 ? 100.0 * r.delta / r.stat_a : 0;
  if (b == nullptr) {
    r.status = DiffStatus::OnlyA;
    ++result.only_a;
  } else if (a == nullptr) {
    r.status = DiffStatus::OnlyB;
    ++result.only_b;
  } else if (check_op && !r.op.empty() && !r.op_b.empty() && r.op != r.op_b) {
    r.status = DiffStatus::OpChanged;
    ++result.op_changed;
  } else if (r.count_a < options.min_samples || r.count_b < options.min_samples) {
    r.status = DiffStatus::FewSamples;
    ++result.few_samples;
  } else {
    ++result.judged;
    if (std::fabs(r.delta) > options.min_time_ns &&
        (r.stat_a > 0 ? std::fabs(r.delta_pct) > options.threshold_pct : r.delta != 0)) {
      if (r.delta > 0) {
        r.status = DiffStatus::Regression;
        ++result.regressions;
      } else {
        r.status = DiffStatus::Improvement;
        ++result.improvements;
      }
    }
  }
}

// The rows of the events matched by name, ordered by key: both sides' keys merged in order.
void diff_by_name(const Side& in_a, const Side& in_b, const DiffOptions& options,
                  DiffResult& result) {
  const auto& a = in_a.by_name;
  const auto& b = in_b.by_name;
  result.rows.reserve(result.rows.size() + std::max(a.size(), b.size()));
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const bool take_a = i < a.size() && (j == b.size() || !(b[j].first < a[i].first));
    const bool take_b = j < b.size() && (i == a.size() || !(a[i].first < b[j].first));
    DiffRow r;
    std::tie(r.method, r.instruction, r.name) = take_a ? a[i].first : b[j].first;
    judge(r, take_a ? &a[i].second : nullptr, take_b ? &b[j].second : nullptr, true, options,
          result);
    result.rows.push_back(std::move(r));
    i += take_a ? 1 : 0;
    j += take_b ? 1 : 0;
  }
}

}  // namespace

DiffResult diff_traces(const TraceSelection& a, const TraceSelection& b,
                       const DiffOptions& options) {
  const bool by_handle = options.map_a != nullptr && options.map_b != nullptr;
  const Side in_a = collect(a, {}, by_handle ? options.map_a : nullptr);
  const Side in_b = collect(b, options.methods, by_handle ? options.map_b : nullptr);
  DiffResult result;
  result.statistic = options.statistic;
  result.by_handle = by_handle;
  diff_by_name(in_a, in_b, options, result);
  if (!by_handle) return result;
  HandleGroups groups;
  for (const Side* side : {&in_a, &in_b}) {
    for (const Side::HandleEvent& e : side->handle_events) groups.join(e.method, e.handles);
  }
  const std::map<Handle, Samples> ga = group_samples(in_a, groups);
  const std::map<Handle, Samples> gb = group_samples(in_b, groups);
  for (auto& [leader, handles] : groups.groups()) {
    DiffRow r;
    r.method = leader.first;
    r.handles = handles;
    r.name = node_names_text(*options.map_a, r.method, handles);
    auto ia = ga.find(leader);
    auto ib = gb.find(leader);
    judge(r, ia != ga.end() ? &ia->second : nullptr, ib != gb.end() ? &ib->second : nullptr,
          false, options, result);
    result.rows.push_back(std::move(r));
  }
  return result;
}

Result<DiffResult> diff_dumps(TraceReader& a, TraceReader& b, const EventSelection& select_a,
                              const EventSelection& select_b, const DiffOptions& options) {
  if (options.map_a != nullptr || options.map_b != nullptr) {
    return Error(ErrorCode::InvalidArgument,
                 "diff_dumps matches by name: debug maps need the joined traces (diff_traces)");
  }
  // Both selections are checked before either dump is read, as a regex is checked once.
  ETKIT_TRY(EventSelector::make(select_b));
  // One dump resident at a time: each side's pages are given back once it is read.
  ETKIT_ASSIGN_OR_RETURN(Side in_a, collect_streamed(a, select_a, {}));
  a.release_pages();
  ETKIT_ASSIGN_OR_RETURN(Side in_b, collect_streamed(b, select_b, options.methods));
  b.release_pages();
  DiffResult result;
  result.statistic = options.statistic;
  diff_by_name(in_a, in_b, options, result);
  return result;
}

Table diff_table_head(const DiffResult& result, TimeUnit unit, std::string title) {
  const int d = time_decimals(unit);
  const std::string stat = diff_statistic_column(result.statistic);
  Table t;
  t.name = "diff";
  t.title = std::move(title);
  t.unit = time_unit_name(unit);
  t.columns = {{"method", 0}, {"instruction", 0}};
  if (result.by_handle) t.columns.push_back({"debug_handles", 0});
  const std::vector<Column> rest = {{"name", 0},           {"op", 0},
                                    {"op_b", 0},           {"count_a", 0},
                                    {"count_b", 0},        {stat + "_a", d, true},
                                    {stat + "_b", d, true}, {"delta", d, true},
                                    {"delta_pct", 1},      {"status", 0}};
  t.columns.insert(t.columns.end(), rest.begin(), rest.end());
  return t;
}

void diff_rows(const DiffResult& result, TimeUnit unit, const RowRefVisitor& visit) {
  std::vector<CellRef> row;
  Cell handles;  // the row's debug handles, which its cell borrows
  for (const DiffRow& r : result.rows) {
    row.clear();
    row.push_back(CellRef::string(r.method));
    row.push_back(r.instruction >= 0 ? CellRef::integer(r.instruction) : CellRef::empty());
    if (result.by_handle) {
      handles = handles_cell(r.handles);
      row.push_back(CellRef::of(handles));
    }
    row.push_back(CellRef::string(r.name));
    row.push_back(CellRef::string(r.op));
    row.push_back(CellRef::string(r.op_b));
    row.push_back(CellRef::integer(static_cast<int64_t>(r.count_a)));
    row.push_back(CellRef::integer(static_cast<int64_t>(r.count_b)));
    const bool both = r.count_a > 0 && r.count_b > 0;
    row.push_back(r.count_a > 0 ? CellRef::number(from_ns(r.stat_a, unit)) : CellRef::empty());
    row.push_back(r.count_b > 0 ? CellRef::number(from_ns(r.stat_b, unit)) : CellRef::empty());
    row.push_back(both ? CellRef::number(from_ns(r.delta, unit)) : CellRef::empty());
    row.push_back(both && r.stat_a > 0 ? CellRef::number(r.delta_pct) : CellRef::empty());
    row.push_back(CellRef::string(diff_status_name(r.status)));
    visit(row);
  }
}

Table diff_table(const DiffResult& result, TimeUnit unit, std::string title) {
  Table t = diff_table_head(result, unit, std::move(title));
  t.rows.reserve(result.rows.size());
  diff_rows(result, unit, [&](std::span<const CellRef> refs) {
    std::vector<Cell>& row = t.rows.emplace_back();
    row.reserve(refs.size());
    for (const CellRef& c : refs) row.push_back(c.to_cell());
  });
  return t;
}

Error write_diff_tables(const DiffResult& result, TimeUnit unit, std::string title,
                        ReportStream& report) {
  const Table head = diff_table_head(result, unit, std::move(title));
  ETKIT_TRY(report.table(head,
                         [&](const RowRefVisitor& visit) { diff_rows(result, unit, visit); }));
  return report.table(diff_summary_table(result));
}

Table diff_summary_table(const DiffResult& result) {
  Table t;
  t.name = "diff_summary";
  t.title = "diff summary";
  t.columns = {{"judged", 0}, {"regressions", 0}, {"improvements", 0}, {"op_changed", 0},
               {"only_a", 0}, {"only_b", 0},      {"few_samples", 0},  {"result", 0}};
  t.rows.push_back({static_cast<int64_t>(result.judged), static_cast<int64_t>(result.regressions),
                    static_cast<int64_t>(result.improvements),
                    static_cast<int64_t>(result.op_changed), static_cast<int64_t>(result.only_a),
                    static_cast<int64_t>(result.only_b), static_cast<int64_t>(result.few_samples),
                    std::string(verdict_name(result.verdict()))});
  return t;
}

std::string diff_incomplete_text(const DiffResult& result, const Trace& a, const Trace& b,
                                 const DiffOptions& options) {
  if (result.verdict() != Verdict::Incomplete) return std::string();
  bool shared = false;
  for (const TraceBlock& x : a.blocks) {
    for (const TraceBlock& y : b.blocks) {
      shared = shared || x.method == method_in_a(options.methods, y.method);
    }
  }
  if (!shared) {
    return "nothing was compared: no method in common (methods of a: " + method_list(a) +
           "; of b: " + method_list(b) + "); pair them with --method-map A=B";
  }
  if (result.few_samples > 0) {
    return "nothing was compared: " + std::to_string(result.few_samples) +
           " matched events, each with fewer than " + std::to_string(options.min_samples) +
           " samples on a side (--min-samples)";
  }
  return "nothing was compared: no event of a matches one of b";
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
