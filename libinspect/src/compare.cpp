#include "etkit/inspect/compare.h"

#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include "etkit/inspect/values.h"

namespace etkit::inspect {

namespace {

using Key = std::tuple<std::string, bool, uint32_t, int32_t, std::string, bool, uint32_t, size_t>;

// Keys of every value of `trace`, in order.
std::vector<Key> keys_of(const Trace& trace) {
  std::map<Key, size_t> seen;  // key without occurrence -> count
  std::vector<Key> keys;
  for (const TraceValue& v : trace.values) {
    const TraceBlock& b = trace.blocks[v.block];
    Key k{b.method, b.load, b.iteration, v.instruction, v.delegate_id, v.is_output,
          v.list_index, 0};
    std::get<7>(k) = seen[k]++;
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

}  // namespace

CompareResult compare_values(const ValueSource& a, const ValueSource& b,
                             const Tolerance& tolerance) {
  CompareResult result;
  Table& t = result.table;
  t.title = "values of " + a.trace->path + " (a) against " + b.trace->path + " (b)";
  t.columns = {{"method", 0}, {"kind", 0},       {"iteration", 0}, {"instruction", 0},
               {"op", 0},     {"delegate", 0},   {"output", 0},    {"list_index", 0},
               {"occurrence", 0}, {"value_a", 0}, {"value_b", 0},  {"shape", 0},
               {"mse", 6},    {"max_abs_error", 6}, {"snr_db", 2},  {"cosine", 6},
               {"status", 0}, {"first", 0}};
  const std::vector<Key> keys_a = keys_of(*a.trace);
  const std::vector<Key> keys_b = keys_of(*b.trace);
  std::map<Key, size_t> index_b;
  for (size_t i = 0; i < keys_b.size(); ++i) index_b.emplace(keys_b[i], i);
  std::vector<bool> used_b(keys_b.size(), false);
  bool marked = false;

  auto add_row = [&](const Key& k, const TraceValue& v, Cell value_a, Cell value_b,
                     std::string shape) -> std::vector<Cell>& {
    std::vector<Cell> row;
    row.emplace_back(std::get<0>(k));
    row.emplace_back(std::string(std::get<1>(k) ? "load" : "execute"));
    if (std::get<1>(k)) {
      row.emplace_back(std::monostate{});
    } else {
      row.emplace_back(static_cast<int64_t>(std::get<2>(k)));
    }
    if (std::get<3>(k) >= 0) {
      row.emplace_back(static_cast<int64_t>(std::get<3>(k)));
    } else {
      row.emplace_back(std::monostate{});
    }
    row.emplace_back(v.op);
    row.emplace_back(std::get<4>(k));
    row.emplace_back(int64_t{std::get<5>(k) ? 1 : 0});
    row.emplace_back(static_cast<int64_t>(std::get<6>(k)));
    row.emplace_back(static_cast<int64_t>(std::get<7>(k)));
    row.push_back(std::move(value_a));
    row.push_back(std::move(value_b));
    row.emplace_back(std::move(shape));
    t.rows.push_back(std::move(row));
    return t.rows.back();
  };
  auto finish = [](std::vector<Cell>& row, std::string status, std::string first) {
    while (row.size() < 16) row.emplace_back(std::monostate{});
    row.emplace_back(std::move(status));
    row.emplace_back(std::move(first));
  };

  for (size_t i = 0; i < keys_a.size(); ++i) {
    const TraceValue& va = a.trace->values[i];
    const bool tensor_a =
        va.kind == LoggedValue::Kind::Tensor || va.kind == LoggedValue::Kind::TensorList;
    const std::string shape = tensor_a ? shape_text(va.tensor) : std::string();
    auto it = index_b.find(keys_a[i]);
    if (it == index_b.end()) {
      ++result.unmatched;
      finish(add_row(keys_a[i], va, static_cast<int64_t>(va.index), Cell(), shape), "only_a", "");
      continue;
    }
    used_b[it->second] = true;
    const TraceValue& vb = b.trace->values[it->second];
    std::vector<Cell>& row = add_row(keys_a[i], va, static_cast<int64_t>(va.index),
                                     static_cast<int64_t>(vb.index), shape);
    ++result.matched;
    Result<std::vector<double>> ea = elements_of(va, *a.buffer);
    Result<std::vector<double>> eb = elements_of(vb, *b.buffer);
    std::string problem;
    if (!ea.ok()) {
      problem = std::string("a: ") + ea.error().message();
    } else if (!eb.ok()) {
      problem = std::string("b: ") + eb.error().message();
    } else if (va.kind != vb.kind || (tensor_a && va.tensor.sizes != vb.tensor.sizes)) {
      problem = "different shape or kind in b";
    } else if (ea->size() != eb->size()) {
      problem = "different element count in b";
    }
    if (!problem.empty()) {
      ++result.unreadable;
      finish(row, problem, "");
      continue;
    }
    double sq_err = 0, sq_a = 0, sq_b = 0, dot = 0, max_abs = 0;
    bool past = false;
    for (size_t k = 0; k < ea->size(); ++k) {
      const double x = (*ea)[k];
      const double y = (*eb)[k];
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
    const double n = ea->empty() ? 1 : static_cast<double>(ea->size());
    row.emplace_back(sq_err / n);
    row.emplace_back(max_abs);
    row.emplace_back(sq_err == 0 ? std::numeric_limits<double>::infinity()
                                 : 10 * std::log10(sq_a / sq_err));
    row.emplace_back(sq_a == 0 && sq_b == 0 ? 1.0 : dot / std::sqrt(sq_a * sq_b));
    std::string first;
    if (past) {
      ++result.past_tolerance;
      if (!marked) first = "*";
      marked = true;
    }
    finish(row, past ? "past_tolerance" : "ok", first);
  }
  const std::vector<TraceValue>& values_b = b.trace->values;
  for (size_t i = 0; i < keys_b.size(); ++i) {
    if (used_b[i]) continue;
    ++result.unmatched;
    const TraceValue& vb = values_b[i];
    const bool tensor_b =
        vb.kind == LoggedValue::Kind::Tensor || vb.kind == LoggedValue::Kind::TensorList;
    finish(add_row(keys_b[i], vb, Cell(), static_cast<int64_t>(vb.index),
                   tensor_b ? shape_text(vb.tensor) : std::string()),
           "only_b", "");
  }
  return result;
}

}  // namespace etkit::inspect
