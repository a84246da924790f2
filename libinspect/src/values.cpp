#include "etkit/inspect/values.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>

#include "etkit/host/npy.h"
#include "etkit/host/shape_text.h"
#include "etkit/host/tensor_stats.h"
#include "etkit/runtime/scalar_type.h"
#include "etkit/inspect/event_table.h"
#include "etkit/inspect/operator_naming.h"
#include "block_cells.h"

namespace etkit::inspect {

Result<std::vector<double>> value_elements(const TraceValue& v, const DebugBuffer& buffer) {
  if (v.kind != LoggedValue::Kind::Tensor && v.kind != LoggedValue::Kind::TensorList) {
    return Error(ErrorCode::InvalidArgument, "not a tensor");
  }
  ETKIT_ASSIGN_OR_RETURN(std::span<const uint8_t> bytes, buffer.tensor_bytes(v.tensor));
  return tensor_as_doubles(v.tensor, bytes);
}

Result<HostTensor> value_tensor(const TraceValue& v, const DebugBuffer& buffer) {
  ETKIT_ASSIGN_OR_RETURN(std::span<const uint8_t> bytes, buffer.tensor_bytes(v.tensor));
  const TensorMeta& t = v.tensor;
  std::vector<int32_t> sizes;
  for (int64_t s : t.sizes) {
    if (s > std::numeric_limits<int32_t>::max()) {
      return Error(ErrorCode::NotSupported, "size %lld does not fit int32",
                   static_cast<long long>(s));
    }
    sizes.push_back(static_cast<int32_t>(s));
  }
  if (sizes.size() > std::numeric_limits<uint8_t>::max()) {
    return Error(ErrorCode::NotSupported, "rank %zu is too large", sizes.size());
  }
  // Dim order from the strides: dimensions by decreasing stride (ties by index).
  std::vector<uint8_t> dim_order(sizes.size());
  std::iota(dim_order.begin(), dim_order.end(), uint8_t{0});
  if (t.strides.size() == sizes.size()) {
    std::sort(dim_order.begin(), dim_order.end(), [&](uint8_t a, uint8_t b) {
      return t.strides[a] != t.strides[b] ? t.strides[a] > t.strides[b] : a < b;
    });
  }
  HostTensor h(t.dtype, sizes, dim_order);
  if (h.nbytes() != bytes.size()) {
    return Error(ErrorCode::InvalidData, "payload has %zu bytes, the tensor %zu", bytes.size(),
                 h.nbytes());
  }
  if (!bytes.empty()) std::memcpy(h.data(), bytes.data(), bytes.size());
  return h;
}

std::string value_file_name(const TraceValue& v) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "b" + to_string().
  std::string s = "b";
  s += std::to_string(v.block);
  s += "_v";
  s += std::to_string(v.index);
  if (v.kind == LoggedValue::Kind::TensorList) {
    s += '_';
    s += std::to_string(v.list_index);
  }
  s += ".npy";
  return s;
}

std::vector<Error> save_value_tensors(const Trace& trace, const DebugBuffer& buffer,
                                              const std::vector<bool>& blocks,
                                              const std::string& dir) {
  std::vector<Error> failed;
  for (const TraceValue& v : trace.values) {
    if (!blocks.empty() && !blocks[v.block]) continue;
    if (v.kind != LoggedValue::Kind::Tensor && v.kind != LoggedValue::Kind::TensorList) continue;
    Result<HostTensor> t = value_tensor(v, buffer);
    if (!t.ok()) continue;  // the values table says why
    Error written = write_npy(dir + "/" + value_file_name(v), t->tensor());
    if (!written.ok()) failed.push_back(std::move(written));
  }
  return failed;
}

namespace {

const char* kind_name(LoggedValue::Kind kind) {
  switch (kind) {
    case LoggedValue::Kind::Null: return "none";
    case LoggedValue::Kind::Int: return "int";
    case LoggedValue::Kind::Bool: return "bool";
    case LoggedValue::Kind::Float: return "float";
    case LoggedValue::Kind::Double: return "double";
    case LoggedValue::Kind::Tensor: return "tensor";
    case LoggedValue::Kind::TensorList: return "tensor_list";
  }
  return "none";
}

}  // namespace

std::span<const uint32_t> value_debug_handles(const Trace& trace, const TraceValue& v,
                                              const DebugMap& map) {
  if (v.instruction < 0) return {};
  Result<const MethodDebugMap*> m = debug_map_method(map, trace.blocks[v.block].method, "");
  if (!m.ok()) return {};
  return (*m)->handles_at(0, v.instruction, v.delegate_id);
}

Table values_table(const Trace& trace, const DebugBuffer& buffer,
                   const std::vector<bool>& blocks) {
  return values_table(trace, buffer, blocks, nullptr);
}

namespace {

// The head of the values table (no rows), as `values_table` describes it.
Table values_head(const std::string& path, const DebugMap* map) {
  Table t;
  t.name = "values";
  t.title = "values of " + path;
  t.columns = {{"block", 0},  {"method", 0}, {"kind", 0},     {"iteration", 0}, {"value", 0},
               {"list_index", 0}, {"instruction", 0}, {"op", 0}, {"delegate", 0},
               {"name", 0},   {"output", 0}, {"dtype", 0},    {"shape", 0},     {"numel", 0},
               {"min", kSignificantDigits},     {"max", kSignificantDigits},
               {"mean", kSignificantDigits},    {"std", kSignificantDigits},       {"nan", 0},
               {"inf", 0},    {"status", 0}};
  if (map != nullptr) {
    t.columns.insert(t.columns.begin() + 9, {{"handles", 0}, {"ops", 0}});
  }
  return t;
}

// The row of value `v` of `trace` into `row` (cleared first).
void value_row(const Trace& trace, const TraceValue& v, const DebugBuffer& buffer,
               const DebugMap* map, std::vector<Cell>& row) {
  const TraceBlock& b = trace.blocks[v.block];
  row.clear();
  append_block_cells(trace, v.block, row);
  row.emplace_back(static_cast<int64_t>(v.index));
  row.emplace_back(static_cast<int64_t>(v.list_index));
  if (v.instruction >= 0) {
    row.emplace_back(static_cast<int64_t>(v.instruction));
  } else {
    row.emplace_back(std::monostate{});
  }
  row.emplace_back(v.op);
  row.emplace_back(v.delegate_id);
  if (map != nullptr) {
    const std::span<const uint32_t> handles = value_debug_handles(trace, v, *map);
    row.push_back(handles_cell(handles));
    row.emplace_back(node_names_text(*map, b.method, handles));
  }
  row.emplace_back(v.name);
  row.emplace_back(int64_t{v.is_output ? 1 : 0});
  const bool tensor =
      v.kind == LoggedValue::Kind::Tensor || v.kind == LoggedValue::Kind::TensorList;
  Result<std::vector<double>> elements = std::vector<double>{v.scalar};
  if (tensor) {
    row.emplace_back(std::string(scalar_type_name(v.tensor.dtype)));
    row.push_back(shape_cell(v.tensor.sizes));
    row.emplace_back(static_cast<int64_t>(v.tensor.numel()));
    elements = value_elements(v, buffer);
  } else {
    row.emplace_back(std::string(kind_name(v.kind)));
    row.emplace_back(std::monostate{});
    row.emplace_back(int64_t{1});
  }
  if (!elements.ok()) {
    for (int i = 0; i < 6; ++i) row.emplace_back(std::monostate{});
    row.emplace_back(std::string(elements.error().message()));
    return;
  }
  // The one tensor statistics (a scalar is one element): empty cells (null in JSON) when no
  // element is finite, so an all-NaN value shows no made-up 0.
  const TensorStats s = tensor_stats(*elements);
  for (const std::optional<double>& x : {s.min, s.max, s.mean, s.std}) {
    if (x) {
      row.emplace_back(*x);
    } else {
      row.emplace_back(std::monostate{});
    }
  }
  row.emplace_back(static_cast<int64_t>(s.nan));
  row.emplace_back(static_cast<int64_t>(s.inf));
  row.emplace_back(std::string());
}

// Joins each block of `reader` that `blocks` selects (all when empty) into `trace` (made by
// `reader.skeleton()`) in place of the one before, and calls `use()` with it joined.
template <typename Use>
void for_each_block(TraceReader& reader, const std::vector<bool>& blocks, Trace& trace,
                    Use&& use) {
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    if (!blocks.empty() && !blocks[b]) continue;
    reader.rejoin_block(b, trace);
    use();
  }
}

}  // namespace

Table values_table(const Trace& trace, const DebugBuffer& buffer, const std::vector<bool>& blocks,
                   const DebugMap* map) {
  Table t = values_head(trace.path, map);
  for (const TraceValue& v : trace.values) {
    if (!blocks.empty() && !blocks[v.block]) continue;
    std::vector<Cell> row;
    value_row(trace, v, buffer, map, row);
    t.rows.push_back(std::move(row));
  }
  return t;
}

Error write_values_table(TraceReader& reader, const DebugBuffer& buffer,
                         const std::vector<bool>& blocks, Format format,
                         const RenderOptions& options,
                         const std::function<void(std::string_view)>& write) {
  Trace trace = reader.skeleton();
  const Table head = values_head(trace.path, nullptr);
  std::vector<Cell> row;
  auto rows = [&](const RowVisitor& visit) {
    for_each_block(reader, blocks, trace, [&] {
      for (const TraceValue& v : trace.values) {
        value_row(trace, v, buffer, nullptr, row);
        visit(row);
      }
    });
  };
  return render_streamed(head, rows, format, options, write);
}

std::vector<Error> save_value_tensors(TraceReader& reader, const DebugBuffer& buffer,
                                      const std::vector<bool>& blocks, const std::string& dir) {
  Trace trace = reader.skeleton();
  std::vector<Error> failed;
  for_each_block(reader, blocks, trace, [&] {
    for (Error& e : save_value_tensors(trace, buffer, {}, dir)) failed.push_back(std::move(e));
  });
  return failed;
}

}  // namespace etkit::inspect
