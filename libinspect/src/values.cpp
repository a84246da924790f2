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
#include "pass_memo.h"

namespace etkit::inspect {

Result<std::vector<double>> value_elements(const TraceValue& v, const DebugBuffer& buffer) {
  std::vector<double> out;
  ETKIT_TRY(value_elements(v, buffer, out));
  return out;
}

Error value_elements(const TraceValue& v, const DebugBuffer& buffer, std::vector<double>& out) {
  if (v.kind != LoggedValue::Kind::Tensor && v.kind != LoggedValue::Kind::TensorList) {
    return Error(ErrorCode::InvalidArgument, "not a tensor");
  }
  ETKIT_ASSIGN_OR_RETURN(std::span<const uint8_t> bytes, buffer.tensor_bytes(v.tensor));
  return tensor_as_doubles(v.tensor, bytes, out);
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

// The rows of the values table as borrowed cells, made one at a time. What a row's cells point
// to besides the trace (the shape's text, the map's texts, the status) is kept here until the
// next row, and the elements are read into a vector kept between rows: once these have grown, a
// row allocates nothing, where owning cells had cost a string or a vector per cell and a vector
// of elements per value. `values_table` copies the rows into cells; `write_values_table`
// streams them as they are.
class ValueRows {
 public:
  ValueRows(const DebugBuffer& buffer, const DebugMap* map) : buffer_(buffer), map_(map) {}

  // Starts a pass over the rows (aligned text makes two): a tensor's statistics computed in
  // the first are found again in the next, by row number.
  void rewind() { kept_.rewind(); }

  // The row of value `v` of `trace`, valid until the next call.
  std::span<const CellRef> row(const Trace& trace, const TraceValue& v) {
    const TensorStats* kept = kept_.next_row();
    // Cells are written in place, not pushed: a pushed cell was built on the stack and copied,
    // a third of the row's time.
    row_.resize(kBlockCells + 17 + (map_ != nullptr ? 2 : 0));
    CellRef* r = put_block_cells(trace, v.block, row_.data());
    *r++ = CellRef::integer(v.index);
    *r++ = CellRef::integer(v.list_index);
    *r++ = v.instruction >= 0 ? CellRef::integer(v.instruction) : CellRef::empty();
    *r++ = CellRef::string(v.op);
    *r++ = CellRef::string(v.delegate_id);
    if (map_ != nullptr) {
      const std::span<const uint32_t> handles = value_debug_handles(trace, v, *map_);
      handles_ = handles_text(handles);
      handle_items_.assign(handles.begin(), handles.end());
      *r++ = handles.empty() ? CellRef::empty()
                             : CellRef{CellRef::Kind::List, 0, 0, handles_, handle_items_};
      ops_ = node_names_text(*map_, trace.blocks[v.block].method, handles);
      *r++ = CellRef::string(ops_);
    }
    *r++ = CellRef::string(v.name);
    *r++ = CellRef::integer(v.is_output ? 1 : 0);
    Error read;
    if (v.kind == LoggedValue::Kind::Tensor || v.kind == LoggedValue::Kind::TensorList) {
      *r++ = CellRef::string(scalar_type_name(v.tensor.dtype));
      shape_text(v.tensor.sizes, shape_);
      *r++ = {CellRef::Kind::List, 0, 0, shape_, v.tensor.sizes};
      *r++ = CellRef::integer(static_cast<int64_t>(v.tensor.numel()));
      if (kept != nullptr) return statistics(*kept, r);
      read = value_elements(v, buffer_, elements_);
    } else {
      *r++ = CellRef::string(kind_name(v.kind));
      *r++ = CellRef::empty();
      *r++ = CellRef::integer(1);
      elements_.assign(1, v.scalar);  // a scalar is one element
    }
    if (!read.ok()) {
      for (int k = 0; k < 6; ++k) *r++ = CellRef::empty();  // no statistics
      status_ = read.message();
      *r = CellRef::string(status_);
      return row_;
    }
    const TensorStats s = tensor_stats(elements_);
    kept_.keep(elements_.size(), s);
    return statistics(s, r);
  }

 private:
  // Writes the statistics cells at `r` and returns the row. The one tensor statistics: empty
  // cells (null in JSON) when no element is finite, so an all-NaN value shows no made-up 0.
  std::span<const CellRef> statistics(const TensorStats& s, CellRef* r) {
    for (const std::optional<double>& x : {s.min, s.max, s.mean, s.std}) {
      *r++ = x ? CellRef::number(*x) : CellRef::empty();
    }
    *r++ = CellRef::integer(static_cast<int64_t>(s.nan));
    *r++ = CellRef::integer(static_cast<int64_t>(s.inf));
    *r = CellRef::string("");
    return row_;
  }

  const DebugBuffer& buffer_;
  const DebugMap* map_;
  detail::PassMemo<TensorStats> kept_;
  std::vector<CellRef> row_;
  std::vector<double> elements_;
  std::string shape_, handles_, ops_, status_;
  std::vector<int64_t> handle_items_;
};

// Joins the values of each block of `reader` that `blocks` selects (all when empty) into `trace`
// (made by `reader.skeleton()`) in place of the one before, and calls `use()` with them. Then
// gives the pages of the dump and of `buffer` back (`release_pages`), as `write_compare` does:
// a joined block holds copies of what it needs, and a payload is read only while its row is
// made, so one block of each is resident at a time, and a pass costs no more faults than before
// (each page is read once a pass). Kept to the end of the pass, they had set the peak of
// `report A A` on the values dump: the whole dump and buffer beside the heap of the pass.
template <typename Use>
void for_each_block(TraceReader& reader, const DebugBuffer& buffer,
                    const std::vector<bool>& blocks, Trace& trace, Use&& use) {
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    if (!blocks.empty() && !blocks[b]) continue;
    reader.rejoin_values(b, trace);
    use();
    reader.release_pages();
    buffer.release_pages();
  }
}

}  // namespace

Table values_table(const Trace& trace, const DebugBuffer& buffer, const std::vector<bool>& blocks,
                   const DebugMap* map) {
  Table t = values_head(trace.path, map);
  ValueRows rows(buffer, map);
  for (const TraceValue& v : trace.values) {
    if (!blocks.empty() && !blocks[v.block]) continue;
    std::vector<Cell>& row = t.rows.emplace_back();
    for (const CellRef& cell : rows.row(trace, v)) row.push_back(cell.to_cell());
  }
  return t;
}

Error write_values_table(TraceReader& reader, const DebugBuffer& buffer,
                         const std::vector<bool>& blocks, Format format,
                         const RenderOptions& options,
                         const std::function<void(std::string_view)>& write) {
  Trace trace = reader.skeleton();
  const Table head = values_head(trace.path, nullptr);
  ValueRows maker(buffer, nullptr);
  auto rows = [&](const RowRefVisitor& visit) {
    maker.rewind();
    for_each_block(reader, buffer, blocks, trace, [&] {
      for (const TraceValue& v : trace.values) visit(maker.row(trace, v));
    });
  };
  size_t expected = 0;  // a row per logged value (a list's tensors each have one: more)
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    if (blocks.empty() || blocks[b]) expected += reader.block_summary(b).debug_events;
  }
  return render_streamed_refs(head, rows, format, options, write,
                              row_memory_for(reader.size() + buffer.size(), expected));
}

std::vector<Error> save_value_tensors(TraceReader& reader, const DebugBuffer& buffer,
                                      const std::vector<bool>& blocks, const std::string& dir) {
  Trace trace = reader.skeleton();
  std::vector<Error> failed;
  for_each_block(reader, buffer, blocks, trace, [&] {
    for (Error& e : save_value_tensors(trace, buffer, {}, dir)) failed.push_back(std::move(e));
  });
  return failed;
}

}  // namespace etkit::inspect
