#include "etkit/inspect/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <span>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "etkit/host/shape_text.h"
#include "etkit/inspect/event_table.h"
#include "etkit/inspect/method_map.h"
#include "etkit/inspect/values.h"
#include "etkit/inspect/operator_naming.h"
#include "etkit/inspect/report_stream.h"
#include "pass_memo.h"

namespace etkit::inspect {

namespace {

// Where a value was logged, as compared: method, load block, iteration, debug handle (-1 when
// matched by position), instruction, delegate id, output flag, TensorList position, occurrence.
using Key = std::tuple<std::string, bool, uint32_t, int64_t, int32_t, std::string, bool, uint32_t,
                       size_t>;

// The handle a value is matched by: the last (largest) of the handles it stands for, the
// operation whose output it is; -1 without a map or when the map names none, and for the
// values a DelegateCall logs without a delegate id (its arguments, inputs and outputs alike).
int64_t anchor_handle(const Trace& trace, const TraceValue& v, const DebugMap* map) {
  if (map == nullptr || v.instruction < 0) return -1;
  if (v.delegate_id.empty()) {
    Result<const MethodDebugMap*> m = debug_map_method(*map, trace.blocks[v.block].method, "");
    if (!m.ok()) return -1;
    const InstructionEntry* entry = (*m)->find_instruction(0, v.instruction);
    if (entry == nullptr || entry->kind != InstructionKind::Kernel) return -1;
  }
  const std::span<const uint32_t> handles = value_debug_handles(trace, v, *map);
  if (handles.empty()) return -1;
  return *std::max_element(handles.begin(), handles.end());
}

// The key of value `v` of `trace`: by debug handle when `map` is given and names one for it,
// else by place; the method named through `methods` (B's side). The occurrence counts the
// values of the same key before it in `seen` (key without occurrence -> count), which spans
// every block of the method's kind and iteration: a method logs the same place again within an
// iteration (a loop), and with --include-warmup a warm-up block shares its iteration number with
// a measured one.
Key key_of(const Trace& trace, const TraceValue& v, const DebugMap* map, const MethodMap& methods,
           std::map<Key, size_t>& seen) {
  const TraceBlock& b = trace.blocks[v.block];
  const std::string& method = method_in_a(methods, b.method);
  const int64_t handle = anchor_handle(trace, v, map);
  Key k = handle >= 0 ? Key{method, b.load, b.iteration, handle, -1, "", v.is_output,
                            v.list_index, 0}
                      : Key{method, b.load, b.iteration, -1, v.instruction, v.delegate_id,
                            v.is_output, v.list_index, 0};
  std::get<8>(k) = seen[k]++;
  return k;
}

// Keys of every value of `trace`, in order (`key_of`).
std::vector<Key> keys_of(const Trace& trace, const DebugMap* map, const MethodMap& methods) {
  std::map<Key, size_t> seen;
  std::vector<Key> keys;
  keys.reserve(trace.values.size());
  for (const TraceValue& v : trace.values) keys.push_back(key_of(trace, v, map, methods, seen));
  return keys;
}

// The elements of `v` into `out` (kept between values, so that reading allocates nothing once it
// has grown): a tensor's, a scalar as one, none for Null.
Error elements_of(const TraceValue& v, const DebugBuffer& buffer, std::vector<double>& out) {
  if (v.kind == LoggedValue::Kind::Tensor || v.kind == LoggedValue::Kind::TensorList) {
    return value_elements(v, buffer, out);
  }
  if (v.kind == LoggedValue::Kind::Null) {
    out.clear();
  } else {
    out.assign(1, v.scalar);
  }
  return Error();
}

bool is_tensor(const TraceValue& v) {
  return v.kind == LoggedValue::Kind::Tensor || v.kind == LoggedValue::Kind::TensorList;
}

Cell shape_of(const TraceValue& v) { return is_tensor(v) ? shape_cell(v.tensor.sizes) : Cell(); }

// "b value 4 (forward, iteration 1, instruction 0 addmm.out)".
std::string value_place(const char* side, const Trace& trace, const TraceValue& v) {
  const TraceBlock& b = trace.blocks[v.block];
  std::string out = std::string(side) + " value " + std::to_string(v.index) + " (" + b.method +
                    ", " + (b.load ? std::string("load") : "iteration " + std::to_string(b.iteration));
  if (v.instruction >= 0) {
    out += ", instruction " + std::to_string(v.instruction);
    if (!v.op.empty()) {
      out += ' ';
      out += v.op;
    }
  }
  if (!v.delegate_id.empty()) {
    out += ", delegate ";
    out += v.delegate_id;
  }
  if (v.is_output) out += ", output";
  if (v.list_index > 0) out += ", list index " + std::to_string(v.list_index);
  return out + ")";
}

Cell instruction_cell(const TraceValue& v) {
  if (v.instruction < 0) return std::monostate{};
  return static_cast<int64_t>(v.instruction);
}

// The gap between two values' elements.
struct Gap {
  double mse = 0, max_abs = 0, snr_db = 0, cosine = 0;
  bool past = false;  // some element is past tolerance
};

// Folds a gap's largest absolute error into the largest of a comparison, `worst` (NaN stays).
void fold_worst(double& worst, double max_abs) {
  worst = std::isnan(worst) || std::isnan(max_abs) ? std::numeric_limits<double>::quiet_NaN()
                                                   : std::max(worst, max_abs);
}

// The gap between `ea` and `eb` (of one size).
Gap measure(const std::vector<double>& ea, const std::vector<double>& eb,
            const Tolerance& tolerance) {
  double sq_err = 0, sq_a = 0, sq_b = 0, dot = 0, max_abs = 0;
  bool past = false;
  for (size_t k = 0; k < ea.size(); ++k) {
    const double x = ea[k];
    const double y = eb[k];
    if (std::isnan(x) && std::isnan(y)) continue;
    if (x == y) {  // equal infinities too
      if (std::isfinite(x)) {
        sq_a += x * x;
        sq_b += y * y;
        dot += x * y;
      }
      continue;
    }
    const double d = std::fabs(y - x);
    if (!(d <= tolerance.atol + tolerance.rtol * std::fabs(x))) past = true;
    max_abs = std::isnan(d) ? d : std::max(max_abs, d);
    sq_err += d * d;
    sq_a += x * x;
    sq_b += y * y;
    dot += x * y;
  }
  const double n = ea.empty() ? 1 : static_cast<double>(ea.size());
  Gap g;
  g.mse = sq_err / n;
  g.max_abs = max_abs;
  g.snr_db = sq_err == 0 ? std::numeric_limits<double>::infinity() : 10 * std::log10(sq_a / sq_err);
  g.cosine = sq_a == 0 && sq_b == 0 ? 1.0 : dot / std::sqrt(sq_a * sq_b);
  g.past = past;
  return g;
}

// The table without rows, as `compare_values` describes it.
Table compare_head(const std::string& path_a, const std::string& path_b, bool by_handle) {
  Table t;
  t.name = "compare";
  t.title = "values of " + path_a + " (a) against " + path_b + " (b)";
  if (by_handle) {
    t.columns = {{"method", 0},        {"kind", 0},       {"iteration", 0},  {"debug_handle", 0},
                 {"node", 0},          {"instruction", 0}, {"op", 0},        {"delegate", 0},
                 {"instruction_b", 0}, {"op_b", 0},       {"delegate_b", 0}, {"output", 0},
                 {"list_index", 0},    {"occurrence", 0}, {"value_a", 0},    {"value_b", 0},
                 {"shape", 0},         {"mse", kSignificantDigits},        {"max_abs_error", kSignificantDigits},
                 {"snr_db", 2},        {"cosine", 6},     {"status", 0},     {"first", 0}};
  } else {
    t.columns = {{"method", 0},    {"kind", 0},       {"iteration", 0}, {"instruction", 0},
                 {"op", 0},        {"delegate", 0},   {"output", 0},    {"list_index", 0},
                 {"occurrence", 0}, {"value_a", 0},   {"value_b", 0},   {"shape", 0},
                 {"mse", kSignificantDigits},       {"max_abs_error", kSignificantDigits}, {"snr_db", 2}, {"cosine", 6},
                 {"status", 0},    {"first", 0}};
  }
  return t;
}

// A row's place, as its key gives it: method (as A names it), load block, iteration, debug
// handle (-1 when matched by place), output flag, TensorList position, occurrence.
struct RowPlace {
  const std::string* method = nullptr;
  bool load = false;
  uint32_t iteration = 0;
  int64_t handle = -1;
  bool is_output = false;
  uint32_t list_index = 0;
  size_t occurrence = 0;
};

RowPlace place_of(const Key& k) {
  return {&std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k),
          std::get<6>(k),  std::get<7>(k), std::get<8>(k)};
}

// Judges the rows of a comparison one at a time, in row order, and counts what they say: the
// one judge of the joined `compare_values` and the streamed `write_compare`. A row is judged
// (`a_row`, `b_row`) and then written out of the last judgement (`cells`, `refs`).
class RowMaker {
 public:
  RowMaker(const Tolerance& tolerance, size_t listed) : tolerance_(tolerance), listed_(listed) {}

  CompareCounts counts;

  // Starts over (counts, the first marker), for a pass over the same rows (aligned text makes
  // two): a gap over large tensors measured in the first is found again in the next, by row
  // number.
  void reset() {
    counts = CompareCounts();
    marked_ = false;
    kept_.rewind();
  }

  // Judges A's value `va` (of `ta`) against B's `vb`, or only in A when `vb` is null.
  void a_row(const Trace& ta, const TraceValue& va, const DebugBuffer& ba, const TraceValue* vb,
             const DebugBuffer& bb) {
    const Gap* kept = kept_.next_row();
    measured_ = false;
    first_ = false;
    if (vb == nullptr) {
      unmatched("a", ta, va);
      status_ = "only_a";
      return;
    }
    ++counts.matched;
    if (kept != nullptr) {
      judged(*kept);
      return;
    }
    const Error ea = elements_of(va, ba, ea_);
    const Error eb = elements_of(*vb, bb, eb_);
    if (!ea.ok()) {
      problem_ = "a: ";
      problem_ += ea.message();
    } else if (!eb.ok()) {
      problem_ = "b: ";
      problem_ += eb.message();
    } else if (va.kind != vb->kind || (is_tensor(va) && va.tensor.sizes != vb->tensor.sizes)) {
      problem_ = "different shape or kind in b";
    } else if (ea_.size() != eb_.size()) {
      problem_ = "different element count in b";
    } else {
      problem_.clear();
    }
    if (!problem_.empty()) {
      ++counts.unreadable;
      status_ = problem_;
      return;
    }
    const Gap gap = measure(ea_, eb_, tolerance_);
    kept_.keep(ea_.size(), gap);
    judged(gap);
  }

  // Judges B's value `vb` (of `tb`) that nothing matched.
  void b_row(const Trace& tb, const TraceValue& vb) {
    kept_.next_row();
    measured_ = false;
    first_ = false;
    unmatched("b", tb, vb);
    status_ = "only_b";
  }

  // The last row judged as cells: the place `p`, A's side from `va`, B's from `vb` (either
  // null); by handle (the columns of `compare_values` with debug maps) when `maps` are given.
  void cells(const RowPlace& p, const TraceValue* va, const TraceValue* vb,
             const DebugMap* map_a, const DebugMap* map_b, std::vector<Cell>& row) const {
    row.clear();
    row.emplace_back(*p.method);
    row.emplace_back(std::string(p.load ? "load" : "execute"));
    if (p.load) {
      row.emplace_back(std::monostate{});
    } else {
      row.emplace_back(static_cast<int64_t>(p.iteration));
    }
    if (map_a != nullptr && map_b != nullptr) {
      if (p.handle >= 0) {
        const uint32_t h = static_cast<uint32_t>(p.handle);
        row.emplace_back(p.handle);
        row.emplace_back(node_names_text(va != nullptr ? *map_a : *map_b, *p.method,
                                         std::span<const uint32_t>(&h, 1)));
      } else {
        row.emplace_back(std::monostate{});
        row.emplace_back(std::string());
      }
      for (const TraceValue* v : {va, vb}) {
        row.push_back(v != nullptr ? instruction_cell(*v) : Cell());
        row.emplace_back(v != nullptr ? std::string(v->op) : std::string());
        row.emplace_back(v != nullptr ? std::string(v->delegate_id) : std::string());
      }
    } else {
      const TraceValue& v = va != nullptr ? *va : *vb;
      row.push_back(instruction_cell(v));
      row.emplace_back(std::string(v.op));
      row.emplace_back(std::string(v.delegate_id));
    }
    row.emplace_back(int64_t{p.is_output ? 1 : 0});
    row.emplace_back(static_cast<int64_t>(p.list_index));
    row.emplace_back(static_cast<int64_t>(p.occurrence));
    row.push_back(va != nullptr ? Cell(static_cast<int64_t>(va->index)) : Cell());
    row.push_back(vb != nullptr ? Cell(static_cast<int64_t>(vb->index)) : Cell());
    row.push_back(shape_of(va != nullptr ? *va : *vb));
    for (double x : {gap_.mse, gap_.max_abs, gap_.snr_db, gap_.cosine}) {
      row.push_back(measured_ ? Cell(x) : Cell());
    }
    row.emplace_back(std::string(status_));
    row.emplace_back(std::string(first_ ? "*" : ""));
  }

  // The same borrowed, matching by place: views of the values, `p`'s method and this maker,
  // valid until the next row is judged; the shape text is kept in `shape`.
  void refs(const RowPlace& p, const TraceValue* va, const TraceValue* vb, std::string& shape,
            std::vector<CellRef>& row) const {
    const TraceValue& v = va != nullptr ? *va : *vb;
    auto integer_or_empty = [](bool present, int64_t x) {
      return present ? CellRef::integer(x) : CellRef::empty();
    };
    // Cells are written in place, not pushed: a pushed cell was built on the stack and copied.
    row.resize(18);
    CellRef* r = row.data();
    *r++ = CellRef::string(*p.method);
    *r++ = CellRef::string(p.load ? "load" : "execute");
    *r++ = integer_or_empty(!p.load, p.iteration);
    *r++ = integer_or_empty(v.instruction >= 0, v.instruction);
    *r++ = CellRef::string(v.op);
    *r++ = CellRef::string(v.delegate_id);
    *r++ = CellRef::integer(p.is_output ? 1 : 0);
    *r++ = CellRef::integer(p.list_index);
    *r++ = CellRef::integer(static_cast<int64_t>(p.occurrence));
    *r++ = integer_or_empty(va != nullptr, va != nullptr ? va->index : 0);
    *r++ = integer_or_empty(vb != nullptr, vb != nullptr ? vb->index : 0);
    if (is_tensor(v)) {
      shape = shape_text(v.tensor.sizes);
      *r++ = {CellRef::Kind::List, 0, 0, shape, v.tensor.sizes};
    } else {
      *r++ = CellRef::empty();
    }
    for (double x : {gap_.mse, gap_.max_abs, gap_.snr_db, gap_.cosine}) {
      *r++ = measured_ ? CellRef::number(x) : CellRef::empty();
    }
    *r++ = CellRef::string(status_);
    *r = CellRef::string(first_ ? "*" : "");
  }

 private:
  // The judgement of a pair of values whose gap is `gap`.
  void judged(const Gap& gap) {
    gap_ = gap;
    fold_worst(counts.max_abs_error, gap_.max_abs);
    measured_ = true;
    if (gap_.past) {
      ++counts.past_tolerance;
      first_ = !marked_;
      marked_ = true;
    }
    status_ = gap_.past ? "past_tolerance" : "ok";
  }

  void unmatched(const char* side, const Trace& trace, const TraceValue& v) {
    if (counts.unmatched++ < listed_) {
      counts.unmatched_values.push_back(value_place(side, trace, v));
    }
  }

  Tolerance tolerance_;
  size_t listed_;
  bool marked_ = false;
  // The last judgement.
  bool measured_ = false;
  bool first_ = false;
  Gap gap_;
  std::string_view status_;  // a literal or problem_
  std::string problem_;
  std::vector<double> ea_, eb_;  // the elements of the last values judged
  detail::PassMemo<Gap> kept_;
};

// A value's place within its group (method, kind, iteration), matching by place: the key of
// `compare_values` without the group's part and the handle (always -1 here).
struct PlaceKey {
  int32_t instruction = -1;
  bool is_output = false;
  uint32_t list_index = 0;
  size_t occurrence = 0;
  std::string_view delegate_id;  // interned in its trace's strings, which outlive the key
  bool operator==(const PlaceKey&) const = default;
};

struct PlaceHash {
  size_t operator()(const PlaceKey& k) const {
    size_t h = std::hash<std::string_view>()(k.delegate_id);
    for (uint64_t x : {static_cast<uint64_t>(static_cast<uint32_t>(k.instruction)),
                       static_cast<uint64_t>(k.is_output), static_cast<uint64_t>(k.list_index),
                       static_cast<uint64_t>(k.occurrence)}) {
      h ^= std::hash<uint64_t>()(x) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    }
    return h;
  }
};

using PlaceCounts = std::unordered_map<PlaceKey, size_t, PlaceHash>;

// The key of `v` in its group, its occurrence counted in `seen` (as `key_of` does).
PlaceKey place_key(const TraceValue& v, PlaceCounts& seen) {
  PlaceKey k{v.instruction, v.is_output, v.list_index, 0, v.delegate_id};
  k.occurrence = seen[k]++;
  return k;
}

// Method (as A names it), kind and iteration of a block: the part of a key a value shares with
// every value it can match.
using Group = std::tuple<std::string, bool, uint32_t>;
constexpr size_t kNoGroup = static_cast<size_t>(-1);

// The streamed comparison (`write_compare`): A's blocks joined one at a time with B's blocks of
// their group, then B's values nothing matched, in B's order.
class StreamedCompare {
 public:
  StreamedCompare(const StreamedValueSource& a, const StreamedValueSource& b,
                  const Tolerance& tolerance, const MethodMap& methods)
      : a_(a),
        b_(b),
        methods_(methods),
        ta_(a.reader->skeleton()),
        tb_(b.reader->skeleton()),
        maker_(tolerance, kUnmatchedListed) {
    std::map<Group, size_t> ids;
    auto group_of = [&](const TraceBlock& block, const std::string& method) {
      const auto [it, added] = ids.emplace(Group{method, block.load, block.iteration}, ids.size());
      if (added) {
        b_members_.emplace_back();
        last_a_.push_back(kNoGroup);
        last_b_.push_back(kNoGroup);
      }
      return it->second;
    };
    group_a_.assign(ta_.blocks.size(), kNoGroup);
    for (size_t i = 0; i < ta_.blocks.size(); ++i) {
      if (!a.blocks.empty() && !a.blocks[i]) continue;
      group_a_[i] = group_of(ta_.blocks[i], ta_.blocks[i].method);
      last_a_[group_a_[i]] = i;
    }
    group_b_.assign(tb_.blocks.size(), kNoGroup);
    for (size_t j = 0; j < tb_.blocks.size(); ++j) {
      if (!b.blocks.empty() && !b.blocks[j]) continue;
      const size_t g = group_of(tb_.blocks[j], method_in_a(methods, tb_.blocks[j].method));
      group_b_[j] = g;
      b_members_[g].push_back(j);
      last_b_[g] = j;
    }
  }

  const Trace& skeleton_a() const { return ta_; }
  const Trace& skeleton_b() const { return tb_; }
  const CompareCounts& counts() const { return maker_.counts; }

  // Makes every row, in order, from the start (so a second call gives the same rows).
  void rows(const RowRefVisitor& visit) {
    maker_.reset();
    const size_t groups = b_members_.size();
    used_.assign(tb_.blocks.size(), {});
    joined_.assign(tb_.blocks.size(), false);
    cached_ = kNoGroup;
    std::vector<PlaceCounts> seen(groups);
    for (size_t i = 0; i < ta_.blocks.size(); ++i) {
      const size_t g = group_a_[i];
      if (g == kNoGroup) continue;
      // One block of each side resident at a time: a joined block holds copies of what it
      // needs from the dump, and a payload is read only while its row is judged. Values only:
      // their events are not compared.
      a_.reader->rejoin_values(i, ta_);
      a_.reader->release_pages();
      if (!ta_.values.empty() && cached_ != g && !b_members_[g].empty()) join_group(g);
      const TraceBlock& block = ta_.blocks[i];
      // While A's places are B's, in order, from the start of the group, the n-th value of
      // each has the same key (the occurrences count the same prefix), so it matches without
      // the index, which is built at the first difference.
      bool aligned = seen[g].empty();
      if (aligned) seen[g].reserve(ta_.values.size());
      for (size_t p = 0; p < ta_.values.size(); ++p) {
        const TraceValue& va = ta_.values[p];
        const PlaceKey k = place_key(va, seen[g]);
        const TraceValue* vb = nullptr;
        if (cached_ == g) {
          aligned = aligned && p < tb_.values.size() && same_place(va, tb_.values[p]);
          size_t match = p;
          if (!aligned) {
            if (!indexed_) build_index();
            auto it = index_.find(k);
            match = it != index_.end() ? it->second : tb_.values.size();
          }
          if (match < tb_.values.size()) {
            vb = &tb_.values[match];
            used_[vb->block][position_[match]] = true;
          }
        }
        maker_.a_row(ta_, va, *a_.buffer, vb, *b_.buffer);
        maker_.refs(row_place(block.method, block, k), &va, vb, shape_, row_);
        visit(row_);
      }
      maker_.counts.values_a += ta_.values.size();
      a_.buffer->release_pages();
      b_.buffer->release_pages();
      if (i == last_a_[g]) seen[g] = {};
    }
    // B's values nothing matched. A group whose values all matched is not joined again.
    std::vector<bool> done(groups, true);
    for (size_t j = 0; j < tb_.blocks.size(); ++j) {
      const size_t g = group_b_[j];
      if (g == kNoGroup) continue;
      done[g] = done[g] && joined_[j] &&
                std::all_of(used_[j].begin(), used_[j].end(), [](bool u) { return u; });
    }
    cached_ = kNoGroup;
    for (PlaceCounts& s : seen) s = {};
    for (size_t j = 0; j < tb_.blocks.size(); ++j) {
      const size_t g = group_b_[j];
      if (g == kNoGroup) continue;
      if (done[g]) {
        maker_.counts.values_b += used_[j].size();
        continue;
      }
      b_.reader->rejoin_values(j, tb_);
      b_.reader->release_pages();
      const TraceBlock& block = tb_.blocks[j];
      const std::string& method = method_in_a(methods_, block.method);
      if (seen[g].empty()) seen[g].reserve(tb_.values.size());
      for (size_t p = 0; p < tb_.values.size(); ++p) {
        const TraceValue& vb = tb_.values[p];
        const PlaceKey k = place_key(vb, seen[g]);
        if (joined_[j] && used_[j][p]) continue;
        maker_.b_row(tb_, vb);
        maker_.refs(row_place(method, block, k), nullptr, &vb, shape_, row_);
        visit(row_);
      }
      maker_.counts.values_b += tb_.values.size();
      if (j == last_b_[g]) seen[g] = {};
    }
  }

 private:
  static RowPlace row_place(const std::string& method, const TraceBlock& block,
                            const PlaceKey& k) {
    return {&method, block.load, block.iteration, -1, k.is_output, k.list_index, k.occurrence};
  }

  // B's blocks of group `g`, joined into `tb_` in B's order (keyed into `index_` when needed).
  void join_group(size_t g) {
    position_.clear();
    for (size_t k = 0; k < b_members_[g].size(); ++k) {
      const size_t j = b_members_[g][k];
      const size_t start = k == 0 ? 0 : tb_.values.size();
      // The first block over the values of the group before (reusing them), the others after.
      if (k == 0) {
        b_.reader->rejoin_values(j, tb_);
      } else {
        b_.reader->join_values(j, tb_);
      }
      const size_t n = tb_.values.size() - start;
      if (!joined_[j]) {
        used_[j].assign(n, false);
        joined_[j] = true;
      }
      for (size_t p = 0; p < n; ++p) position_.push_back(p);
    }
    b_.reader->release_pages();
    indexed_ = false;
    cached_ = g;
  }

  // `index_` of the values in `tb_`.
  void build_index() {
    index_.clear();
    index_.reserve(tb_.values.size());
    PlaceCounts seen;
    seen.reserve(tb_.values.size());
    for (size_t i = 0; i < tb_.values.size(); ++i) {
      index_.emplace(place_key(tb_.values[i], seen), i);
    }
    indexed_ = true;
  }

  static bool same_place(const TraceValue& x, const TraceValue& y) {
    return x.instruction == y.instruction && x.is_output == y.is_output &&
           x.list_index == y.list_index && x.delegate_id == y.delegate_id;
  }

  const StreamedValueSource& a_;
  const StreamedValueSource& b_;
  const MethodMap& methods_;
  Trace ta_;  // A's block being compared
  Trace tb_;  // B's blocks of group `cached_`, or in the second pass B's block being listed
  RowMaker maker_;
  std::vector<size_t> group_a_, group_b_;       // of each block; kNoGroup when not selected
  std::vector<std::vector<size_t>> b_members_;  // B's blocks of each group, in order
  std::vector<size_t> last_a_, last_b_;         // the last block of each group on each side
  std::vector<std::vector<bool>> used_;         // of each of B's values, per block: matched
  std::vector<bool> joined_;                    // B's block was joined in the first pass
  size_t cached_ = kNoGroup;
  bool indexed_ = false;  // `index_` is of the group in `tb_`
  std::unordered_map<PlaceKey, size_t, PlaceHash> index_;  // key -> index into tb_.values
  std::vector<size_t> position_;  // of each of tb_.values in its block
  std::vector<CellRef> row_;
  std::string shape_;
};

}  // namespace

CompareResult compare_values(const ValueSource& a, const ValueSource& b,
                             const Tolerance& tolerance, const MethodMap& methods) {
  const bool by_handle = a.map != nullptr && b.map != nullptr;
  CompareResult result;
  result.table = compare_head(a.trace->path, b.trace->path, by_handle);
  const std::vector<Key> keys_a = keys_of(*a.trace, a.map, {});
  const std::vector<Key> keys_b = keys_of(*b.trace, b.map, methods);
  std::map<Key, size_t> index_b;
  for (size_t i = 0; i < keys_b.size(); ++i) index_b.emplace(keys_b[i], i);
  std::vector<bool> used_b(keys_b.size(), false);
  const DebugMap* map_a = by_handle ? a.map : nullptr;
  const DebugMap* map_b = by_handle ? b.map : nullptr;
  RowMaker maker(tolerance, static_cast<size_t>(-1));
  std::vector<Cell> row;
  for (size_t i = 0; i < keys_a.size(); ++i) {
    auto it = index_b.find(keys_a[i]);
    const TraceValue* vb = nullptr;
    if (it != index_b.end()) {
      used_b[it->second] = true;
      vb = &b.trace->values[it->second];
    }
    const TraceValue& va = a.trace->values[i];
    maker.a_row(*a.trace, va, *a.buffer, vb, *b.buffer);
    maker.cells(place_of(keys_a[i]), &va, vb, map_a, map_b, row);
    result.table.rows.push_back(std::move(row));
  }
  for (size_t i = 0; i < keys_b.size(); ++i) {
    if (used_b[i]) continue;
    const TraceValue& vb = b.trace->values[i];
    maker.b_row(*b.trace, vb);
    maker.cells(place_of(keys_b[i]), nullptr, &vb, map_a, map_b, row);
    result.table.rows.push_back(std::move(row));
  }
  static_cast<CompareCounts&>(result) = std::move(maker.counts);
  result.values_a = a.trace->values.size();
  result.values_b = b.trace->values.size();
  return result;
}

Result<CompareCounts> write_compare(const StreamedValueSource& a, const StreamedValueSource& b,
                                    const Tolerance& tolerance, const MethodMap& methods,
                                    bool allow_unmatched, Format format,
                                    const RenderOptions& options,
                                    const std::function<void(std::string_view)>& write) {
  StreamedCompare compare(a, b, tolerance, methods);
  const Table head =
      compare_head(compare.skeleton_a().path, compare.skeleton_b().path, false);
  // Two tables of one report (one JSON document): the rows, then the summary.
  ReportStream report(format, options, write);
  // A row per value of the side with more (matched, or one side's unmatched: more).
  size_t expected[2] = {0, 0}, input = 0;
  for (int side = 0; side < 2; ++side) {
    const StreamedValueSource& source = side == 0 ? a : b;
    input += source.reader->size() + (source.buffer != nullptr ? source.buffer->size() : 0);
    const size_t blocks = (side == 0 ? compare.skeleton_a() : compare.skeleton_b()).blocks.size();
    for (size_t i = 0; i < blocks; ++i) {
      if (source.blocks.empty() || source.blocks[i]) {
        expected[side] += source.reader->block_summary(i).debug_events;
      }
    }
  }
  ETKIT_TRY(report.table(head, [&](const RowRefVisitor& visit) { compare.rows(visit); },
                         row_memory_for(input, std::max(expected[0], expected[1]))));
  ETKIT_TRY(report.table(compare_summary_table(compare.counts(), allow_unmatched)));
  report.finish();
  return compare.counts();
}

Table compare_summary_table(const CompareCounts& r, bool allow_unmatched) {
  Table summary;
  summary.name = "compare_summary";
  summary.title = "compare summary";
  summary.columns = {{"matched", 0},   {"past_tolerance", 0}, {"not_comparable", 0},
                     {"unmatched", 0}, {"max_abs_error", kSignificantDigits}, {"result", 0}};
  summary.rows.push_back({static_cast<int64_t>(r.matched), static_cast<int64_t>(r.past_tolerance),
                          static_cast<int64_t>(r.unreadable), static_cast<int64_t>(r.unmatched),
                          r.max_abs_error,
                          std::string(verdict_name(r.verdict(allow_unmatched)))});
  return summary;
}

std::string compare_incomplete_text(const CompareCounts& r, const Trace& a, const Trace& b,
                                    const MethodMap& methods, size_t limit) {
  if (r.values_a == 0 || r.values_b == 0) {
    const std::string who = r.values_a == 0 && r.values_b == 0 ? a.path + " and " + b.path
                            : r.values_a == 0                  ? a.path
                                                               : b.path;
    return "nothing was compared: " + who +
           " logged no values (trace-run logs them with --log intermediates or --log outputs)";
  }
  if (r.matched == 0) {
    bool shared = false;
    for (const TraceBlock& x : a.blocks) {
      for (const TraceBlock& y : b.blocks) {
        shared = shared || x.method == method_in_a(methods, y.method);
      }
    }
    if (!shared) {
      return "nothing was compared: no method in common (methods of a: " + method_list(a) +
             "; of b: " + method_list(b) + "); pair them with --method-map A=B";
    }
  }
  if (r.unmatched == 0) return r.matched == 0 ? "nothing was compared" : std::string();
  std::string out = std::to_string(r.unmatched) + " of " +
                    std::to_string(r.values_a + r.values_b) + " values unmatched: ";
  const size_t shown = std::min(limit, r.unmatched_values.size());
  for (size_t i = 0; i < shown; ++i) out += (i > 0 ? ", " : "") + r.unmatched_values[i];
  // `unmatched_values` may list only the first ones (`write_compare`).
  if (shown < r.unmatched) out += "; and " + std::to_string(r.unmatched - shown) + " more";
  return out;
}

}  // namespace etkit::inspect
