#include "etkit/inspect/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <span>
#include <tuple>
#include <utility>

#include "etkit/inspect/event_table.h"
#include "etkit/inspect/method_map.h"
#include "etkit/inspect/values.h"
#include "etkit/inspect/operator_naming.h"

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

// Keys of every value of `trace`, in order; by debug handle when `map` is given (values the
// map names nothing for keep their position). Methods are named through `methods` (B's side).
std::vector<Key> keys_of(const Trace& trace, const DebugMap* map, const MethodMap& methods) {
  std::map<Key, size_t> seen;  // key without occurrence -> count
  std::vector<Key> keys;
  keys.reserve(trace.values.size());
  for (const TraceValue& v : trace.values) {
    const TraceBlock& b = trace.blocks[v.block];
    const std::string& method = method_in_a(methods, b.method);
    const int64_t handle = anchor_handle(trace, v, map);
    Key k = handle >= 0 ? Key{method, b.load, b.iteration, handle, -1, "", v.is_output,
                              v.list_index, 0}
                        : Key{method, b.load, b.iteration, -1, v.instruction, v.delegate_id,
                              v.is_output, v.list_index, 0};
    std::get<8>(k) = seen[k]++;
    keys.push_back(std::move(k));
  }
  return keys;
}

Result<std::vector<double>> elements_of(const TraceValue& v, const DebugBuffer& buffer) {
  if (v.kind == LoggedValue::Kind::Tensor || v.kind == LoggedValue::Kind::TensorList) {
    return value_elements(v, buffer);
  }
  if (v.kind == LoggedValue::Kind::Null) return std::vector<double>{};
  return std::vector<double>{v.scalar};
}

bool is_tensor(const TraceValue& v) {
  return v.kind == LoggedValue::Kind::Tensor || v.kind == LoggedValue::Kind::TensorList;
}

// "b value 4 (forward, iteration 1, instruction 0 addmm.out)".
std::string value_place(const char* side, const Trace& trace, const TraceValue& v) {
  const TraceBlock& b = trace.blocks[v.block];
  std::string out = std::string(side) + " value " + std::to_string(v.index) + " (" + b.method +
                    ", " + (b.load ? std::string("load") : "iteration " + std::to_string(b.iteration));
  if (v.instruction >= 0) {
    out += ", instruction " + std::to_string(v.instruction);
    if (!v.op.empty()) out += " " + v.op;
  }
  if (!v.delegate_id.empty()) out += ", delegate " + v.delegate_id;
  if (v.is_output) out += ", output";
  if (v.list_index > 0) out += ", list index " + std::to_string(v.list_index);
  return out + ")";
}

Cell instruction_cell(const TraceValue& v) {
  if (v.instruction < 0) return std::monostate{};
  return static_cast<int64_t>(v.instruction);
}

// The gap between two values' elements, appended to `row` (mse, max_abs_error, snr_db,
// cosine), the largest absolute error folded into `worst`. Returns whether some element is past
// tolerance.
bool measure(const std::vector<double>& ea, const std::vector<double>& eb,
             const Tolerance& tolerance, std::vector<Cell>& row, double& worst) {
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
  row.emplace_back(sq_err / n);
  row.emplace_back(max_abs);
  worst = std::isnan(worst) || std::isnan(max_abs) ? std::numeric_limits<double>::quiet_NaN()
                                                   : std::max(worst, max_abs);
  row.emplace_back(sq_err == 0 ? std::numeric_limits<double>::infinity()
                               : 10 * std::log10(sq_a / sq_err));
  row.emplace_back(sq_a == 0 && sq_b == 0 ? 1.0 : dot / std::sqrt(sq_a * sq_b));
  return past;
}

}  // namespace

CompareResult compare_values(const ValueSource& a, const ValueSource& b,
                             const Tolerance& tolerance, const MethodMap& methods) {
  CompareResult result;
  result.values_a = a.trace->values.size();
  result.values_b = b.trace->values.size();
  const bool by_handle = a.map != nullptr && b.map != nullptr;
  Table& t = result.table;
  t.name = "compare";
  t.title = "values of " + a.trace->path + " (a) against " + b.trace->path + " (b)";
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
  const size_t measured_end = t.columns.size() - 2;  // status and first follow the measures
  const std::vector<Key> keys_a = keys_of(*a.trace, a.map, {});
  const std::vector<Key> keys_b = keys_of(*b.trace, b.map, methods);
  std::map<Key, size_t> index_b;
  for (size_t i = 0; i < keys_b.size(); ++i) index_b.emplace(keys_b[i], i);
  std::vector<bool> used_b(keys_b.size(), false);
  bool marked = false;

  // A row up to `shape`: the place from `k`, A's side from `va`, B's from `vb` (either null).
  auto add_row = [&](const Key& k, const TraceValue* va, const TraceValue* vb,
                     Cell shape) -> std::vector<Cell>& {
    std::vector<Cell> row;
    row.emplace_back(std::get<0>(k));
    row.emplace_back(std::string(std::get<1>(k) ? "load" : "execute"));
    if (std::get<1>(k)) {
      row.emplace_back(std::monostate{});
    } else {
      row.emplace_back(static_cast<int64_t>(std::get<2>(k)));
    }
    if (by_handle) {
      const int64_t handle = std::get<3>(k);
      if (handle >= 0) {
        const uint32_t h = static_cast<uint32_t>(handle);
        row.emplace_back(handle);
        row.emplace_back(node_names_text(va != nullptr ? *a.map : *b.map, std::get<0>(k),
                                         std::span<const uint32_t>(&h, 1)));
      } else {
        row.emplace_back(std::monostate{});
        row.emplace_back(std::string());
      }
      for (const TraceValue* v : {va, vb}) {
        row.push_back(v != nullptr ? instruction_cell(*v) : Cell());
        row.emplace_back(v != nullptr ? v->op : std::string());
        row.emplace_back(v != nullptr ? v->delegate_id : std::string());
      }
    } else {
      const TraceValue& v = va != nullptr ? *va : *vb;
      row.push_back(instruction_cell(v));
      row.emplace_back(v.op);
      row.emplace_back(v.delegate_id);
    }
    row.emplace_back(int64_t{std::get<6>(k) ? 1 : 0});
    row.emplace_back(static_cast<int64_t>(std::get<7>(k)));
    row.emplace_back(static_cast<int64_t>(std::get<8>(k)));
    row.push_back(va != nullptr ? Cell(static_cast<int64_t>(va->index)) : Cell());
    row.push_back(vb != nullptr ? Cell(static_cast<int64_t>(vb->index)) : Cell());
    row.emplace_back(std::move(shape));
    t.rows.push_back(std::move(row));
    return t.rows.back();
  };
  auto finish = [&](std::vector<Cell>& row, std::string status, std::string first) {
    while (row.size() < measured_end) row.emplace_back(std::monostate{});
    row.emplace_back(std::move(status));
    row.emplace_back(std::move(first));
  };

  for (size_t i = 0; i < keys_a.size(); ++i) {
    const TraceValue& va = a.trace->values[i];
    const Cell shape = is_tensor(va) ? shape_cell(va.tensor.sizes) : Cell();
    auto it = index_b.find(keys_a[i]);
    if (it == index_b.end()) {
      ++result.unmatched;
      result.unmatched_values.push_back(value_place("a", *a.trace, va));
      finish(add_row(keys_a[i], &va, nullptr, shape), "only_a", "");
      continue;
    }
    used_b[it->second] = true;
    const TraceValue& vb = b.trace->values[it->second];
    std::vector<Cell>& row = add_row(keys_a[i], &va, &vb, shape);
    ++result.matched;
    Result<std::vector<double>> ea = elements_of(va, *a.buffer);
    Result<std::vector<double>> eb = elements_of(vb, *b.buffer);
    std::string problem;
    if (!ea.ok()) {
      problem = std::string("a: ") + ea.error().message();
    } else if (!eb.ok()) {
      problem = std::string("b: ") + eb.error().message();
    } else if (va.kind != vb.kind || (is_tensor(va) && va.tensor.sizes != vb.tensor.sizes)) {
      problem = "different shape or kind in b";
    } else if (ea->size() != eb->size()) {
      problem = "different element count in b";
    }
    if (!problem.empty()) {
      ++result.unreadable;
      finish(row, problem, "");
      continue;
    }
    const bool past = measure(*ea, *eb, tolerance, row, result.max_abs_error);
    std::string first;
    if (past) {
      ++result.past_tolerance;
      if (!marked) first = "*";
      marked = true;
    }
    finish(row, past ? "past_tolerance" : "ok", first);
  }
  for (size_t i = 0; i < keys_b.size(); ++i) {
    if (used_b[i]) continue;
    ++result.unmatched;
    const TraceValue& vb = b.trace->values[i];
    result.unmatched_values.push_back(value_place("b", *b.trace, vb));
    finish(add_row(keys_b[i], nullptr, &vb, is_tensor(vb) ? shape_cell(vb.tensor.sizes) : Cell()),
           "only_b", "");
  }
  return result;
}

Table compare_summary_table(const CompareResult& r, bool allow_unmatched) {
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

std::string compare_incomplete_text(const CompareResult& r, const Trace& a, const Trace& b,
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
  if (shown < r.unmatched_values.size()) {
    out += "; and " + std::to_string(r.unmatched_values.size() - shown) + " more";
  }
  return out;
}

}  // namespace etkit::inspect
