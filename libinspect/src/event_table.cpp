#include "etkit/inspect/event_table.h"
#include "etkit/inspect/operator_naming.h"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <functional>
#include <string_view>

#include "etkit/host/shape_text.h"
#include "etkit/inspect/op_shapes.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/runtime/event_name.h"
#include "block_cells.h"
#include "selected_blocks.h"

namespace etkit::inspect {

bool is_instruction_event(const TraceEvent& e) {
  return !e.delegate && e.instruction >= 0 &&
         event_name::is_instruction_call(e.name);
}

namespace {

// The indices of the values logged at each place (block, instruction, delegate id), as "0,1"
// and as items, in order of logging: value positions sorted by place, then grouped. Built again
// for each streamed block in vectors that keep their capacity, so that the steady state
// allocates nothing; a std::map of strings per block had been most of `show`'s time on a dump
// with values.
class LoggedValues {
 public:
  void index(const Trace& trace) {
    next_ = 0;
    keys_.clear();
    groups_.clear();
    items_.clear();
    text_.clear();
    // Values are logged as instructions run, so a block's are usually in place order already:
    // the sort (with a comparison of three fields per step) had been a seventh of `show` on a
    // dump with values, and is skipped when one pass finds the order.
    bool in_order = true;
    for (size_t k = 0; k < trace.values.size(); ++k) {
      const TraceValue& v = trace.values[k];
      if (v.instruction < 0 || v.list_index > 0) continue;  // a list is one value
      if (!keys_.empty() && place_less(place(v), place(trace.values[keys_.back()]))) {
        in_order = false;
      }
      keys_.push_back(k);
    }
    // Equal places keep their logging order (the stable sort's), as the index's order is.
    if (!in_order) {
      std::stable_sort(keys_.begin(), keys_.end(), [&](size_t a, size_t b) {
        return place_less(place(trace.values[a]), place(trace.values[b]));
      });
    }
    for (size_t j = 0; j < keys_.size(); ++j) {
      const TraceValue& v = trace.values[keys_[j]];
      const Place p = place(v);
      if (groups_.empty() || !same_place(groups_.back().place, p)) {
        groups_.push_back({p, items_.size(), items_.size(), text_.size(), text_.size()});
      } else {
        text_ += ',';
      }
      char buf[16];
      const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.index);
      text_.append(buf, end);
      items_.push_back(static_cast<int64_t>(v.index));
      groups_.back().items_end = items_.size();
      groups_.back().text_end = text_.size();
    }
  }

  /// The list cell of the values logged at the place, empty when none; a view of this index.
  /// Rows come in start order, mostly the places' order: the group after the last one found
  /// is tried before a binary search.
  CellRef find(uint32_t block, int32_t instruction, std::string_view delegate) const {
    const Place key{block, instruction, delegate};
    auto it = groups_.begin() + static_cast<std::ptrdiff_t>(next_);
    if (it == groups_.end() || !same_place(it->place, key)) {
      it = std::lower_bound(groups_.begin(), groups_.end(), key,
                            [](const Group& g, const Place& k) { return place_less(g.place, k); });
      if (it == groups_.end() || !same_place(it->place, key)) return CellRef::empty();
    }
    next_ = static_cast<size_t>(it - groups_.begin()) + 1;
    return {CellRef::Kind::List, 0, 0,
            std::string_view(text_).substr(it->text_begin, it->text_end - it->text_begin),
            std::span<const int64_t>(items_).subspan(it->items_begin,
                                                     it->items_end - it->items_begin)};
  }

 private:
  // (block, instruction, delegate id), ordered field by field; the delegate ids are compared
  // only when the integers tie.
  struct Place {
    uint32_t block;
    int32_t instruction;
    std::string_view delegate;
  };
  static Place place(const TraceValue& v) { return {v.block, v.instruction, v.delegate_id}; }
  static bool place_less(const Place& a, const Place& b) {
    if (a.block != b.block) return a.block < b.block;
    if (a.instruction != b.instruction) return a.instruction < b.instruction;
    return a.delegate < b.delegate;
  }
  static bool same_place(const Place& a, const Place& b) {
    return a.block == b.block && a.instruction == b.instruction && a.delegate == b.delegate;
  }
  struct Group {
    Place place;
    size_t items_begin, items_end, text_begin, text_end;
  };
  std::vector<size_t> keys_;
  std::vector<Group> groups_;
  std::vector<int64_t> items_;
  std::string text_;
  mutable size_t next_ = 0;  // the group `find` tries first
};

bool has_args(const DebugMap& map) {
  for (const auto& [name, m] : map.methods) {
    for (const InstructionEntry& e : m.instructions) {
      if (!e.args.empty()) return true;
    }
  }
  return false;
}

}  // namespace

std::string instruction_shapes_text(const DebugMap& map, const std::string& method,
                                    const TraceEvent& e) {
  if (e.delegate || e.instruction < 0) return "";
  Result<const MethodDebugMap*> m = debug_map_method(map, method, "");
  if (!m.ok()) return "";
  const InstructionEntry* entry = (*m)->find_instruction(e.chain, e.instruction);
  if (entry == nullptr) return "";
  size_t outputs = 1;
  if (const DelegateEntry* d = (*m)->find_delegate(e.chain, e.instruction); d && d->num_outputs) {
    outputs = *d->num_outputs;
  }
  return call_shapes_text(*entry, outputs);
}

std::string handles_text(std::span<const uint32_t> handles) {
  std::string out;
  for (uint32_t h : handles) out += (out.empty() ? "" : ",") + std::to_string(h);
  return out;
}

Cell handles_cell(std::span<const uint32_t> handles) {
  if (handles.empty()) return std::monostate{};
  IntList list;
  list.text = handles_text(handles);
  list.items.assign(handles.begin(), handles.end());
  return list;
}

Cell shape_cell(std::span<const int64_t> sizes) {
  IntList list;
  list.text = shape_text(sizes);
  list.items.assign(sizes.begin(), sizes.end());
  return list;
}

std::string node_names_text(const DebugMap& map, const std::string& method,
                            std::span<const uint32_t> handles) {
  std::string out;
  Result<const MethodDebugMap*> m = debug_map_method(map, method, "");
  for (uint32_t h : handles) {
    if (!out.empty()) out += ",";
    if (m.ok()) {
      if (auto it = (*m)->nodes.find(h); it != (*m)->nodes.end()) {
        out += it->second.name;
        continue;
      }
    }
    out += std::to_string(h);
  }
  return out;
}

Table event_table(const Trace& trace, const std::vector<size_t>& selected, TimeUnit unit) {
  return event_table(trace, selected, unit, nullptr);
}

Table event_table(const Trace& trace, const std::vector<size_t>& selected, TimeUnit unit,
                  const DebugMap* map) {
  return event_table(trace, selected, unit, map, nullptr);
}

namespace {

// The table without rows, and how its rows are built.
struct EventColumns {
  Table head;
  bool with_shapes = false;
  bool with_values = false;
};

EventColumns event_columns(const std::string& path, bool has_values, TimeUnit unit,
                           const DebugMap* map, const MetadataLayout* layout) {
  EventColumns out;
  Table& t = out.head;
  const int d = time_decimals(unit);
  t.name = "events";
  t.title = "events of " + path;
  t.unit = time_unit_name(unit);
  t.columns = {{"block", 0},       {"method", 0}, {"kind", 0}, {"iteration", 0}, {"name", 0},
               {"op", 0},          {"instruction", 0}, {"delegate", 0}, {"depth", 0},
               {"start", d, true}, {"duration", d, true}, {"self", d, true}};
  // Shapes need a map that records arguments (version 2, debugmap-build's).
  out.with_shapes = map != nullptr && has_args(*map);
  if (map != nullptr) {
    t.columns.insert(t.columns.begin() + 8, {{"handles", 0}, {"ops", 0}});
    if (out.with_shapes) t.columns.insert(t.columns.begin() + 10, {"shapes", 0});
  }
  out.with_values = has_values;
  if (has_values) {
    t.columns.insert(t.columns.begin() + (map != nullptr ? (out.with_shapes ? 11 : 10) : 8),
                     {"values", 0});
  }
  if (layout != nullptr) {
    // Floating-point fields may be of any magnitude: 6 significant digits, not 6 decimals.
    for (std::string& c : layout->columns()) {
      t.columns.push_back({std::move(c), kSignificantDigits});
    }
  }
  return out;
}

// The row of event `e` of `trace` into `row` (cleared first).
void event_row(const Trace& trace, const TraceEvent& e, const EventColumns& cols, TimeUnit unit,
               const DebugMap* map, const MetadataLayout* layout,
               const LoggedValues& logged, std::vector<Cell>& row) {
  const TraceBlock& b = trace.blocks[e.block];
  row.clear();
  append_block_cells(trace, e.block, row);
  row.emplace_back(std::string(e.name));
  row.emplace_back(std::string(e.op));
  if (e.instruction >= 0) {
    row.emplace_back(static_cast<int64_t>(e.instruction));
  } else {
    row.emplace_back(std::monostate{});
  }
  row.emplace_back(std::string(e.delegate_id));
  if (map != nullptr) {
    const std::span<const uint32_t> handles = event_debug_handles(trace, e, *map);
    row.push_back(handles_cell(handles));
    row.emplace_back(node_names_text(*map, b.method, handles));
    if (cols.with_shapes) {
      std::string shapes = instruction_shapes_text(*map, b.method, e);
      if (shapes.empty()) {
        row.emplace_back(std::monostate{});
      } else {
        row.emplace_back(std::move(shapes));
      }
    }
  }
  if (cols.with_values) {
    Cell cell;
    if (e.delegate || is_instruction_event(e)) {
      const CellRef found =
          logged.find(e.block, e.instruction, e.delegate ? e.delegate_id : "");
      if (found.kind == CellRef::Kind::List) {
        cell = IntList{{found.items.begin(), found.items.end()}, std::string(found.text)};
      }
    }
    row.push_back(std::move(cell));
  }
  row.emplace_back(static_cast<int64_t>(e.depth));
  row.emplace_back(from_ns(e.start_ns, unit));
  row.emplace_back(from_ns(e.duration_ns, unit));
  row.emplace_back(from_ns(e.self_ns, unit));
  if (layout != nullptr) {
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(e.metadata.data()),
                                         e.metadata.size());
    for (Cell& c : decode_metadata(*layout, bytes)) row.push_back(std::move(c));
  }
}

// `event_row` without a debug map, as borrowed cells (views of the trace's strings, of
// `logged`, and of `decoded`, which holds the metadata's cells): no string is copied. Times are
// divided by `ns_per_unit` (ns_per(unit)): that is from_ns, exactly (a division by 1 for ns
// changes nothing), without a call and a switch per cell, which had been 4% of `show`.
void event_row_refs(const Trace& trace, const TraceEvent& e, const EventColumns& cols,
                    double ns_per_unit, const MetadataLayout* layout,
                    const LoggedValues& logged, std::vector<Cell>& decoded,
                    std::vector<CellRef>& row) {
  if (layout != nullptr) {
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(e.metadata.data()),
                                         e.metadata.size());
    decoded = decode_metadata(*layout, bytes);
  }
  row.resize(kBlockCells + 8 + (cols.with_values ? 1 : 0) + decoded.size());
  CellRef* r = put_block_cells(trace, e.block, row.data());
  *r++ = CellRef::string(e.name);
  *r++ = CellRef::string(e.op);
  *r++ = e.instruction >= 0 ? CellRef::integer(e.instruction) : CellRef::empty();
  *r++ = CellRef::string(e.delegate_id);
  if (cols.with_values) {
    CellRef cell;
    if (e.delegate || is_instruction_event(e)) {
      cell = logged.find(e.block, e.instruction, e.delegate ? e.delegate_id : "");
    }
    *r++ = cell;
  }
  *r++ = CellRef::integer(e.depth);
  *r++ = CellRef::number(e.start_ns / ns_per_unit);
  *r++ = CellRef::number(e.duration_ns / ns_per_unit);
  *r++ = CellRef::number(e.self_ns / ns_per_unit);
  for (const Cell& c : decoded) *r++ = CellRef::of(c);
}

}  // namespace

Table event_table(const Trace& trace, const std::vector<size_t>& selected, TimeUnit unit,
                  const DebugMap* map, const MetadataLayout* layout) {
  EventColumns cols = event_columns(trace.path, !trace.values.empty(), unit, map, layout);
  LoggedValues logged;
  if (cols.with_values) logged.index(trace);
  Table t = std::move(cols.head);
  cols.head = Table();
  t.rows.reserve(selected.size());
  for (size_t i : selected) {
    std::vector<Cell> row;
    row.reserve(t.columns.size());
    event_row(trace, trace.events[i], cols, unit, map, layout, logged, row);
    t.rows.push_back(std::move(row));
  }
  return t;
}

Error write_event_table(TraceReader& reader, const EventSelection& selection, TimeUnit unit,
                        Format format, const RenderOptions& options, const MetadataLayout* layout,
                        const std::function<void(std::string_view)>& write) {
  ReportStream report(format, options, write);
  ETKIT_TRY(write_event_table(reader, selection, unit, layout, report));
  report.finish();
  return Error();
}

Error write_event_table(TraceReader& reader, const EventSelection& selection, TimeUnit unit,
                        const MetadataLayout* layout, ReportStream& report) {
  ETKIT_ASSIGN_OR_RETURN(EventSelector selector, EventSelector::make(selection));
  Trace trace = reader.skeleton();
  const EventColumns cols =
      event_columns(trace.path, reader.has_values(), unit, nullptr, layout);
  std::vector<size_t> selected;
  std::vector<CellRef> row;
  row.reserve(cols.head.columns.size());
  std::vector<Cell> decoded;
  LoggedValues logged;
  const double ns_per_unit = ns_per(unit);
  auto rows = [&](const RowRefVisitor& visit) {
    // One block at a time: events, values and their indices are the block's own. The values
    // column lists where values were logged, which needs no value decoded.
    const BlockValues values = cols.with_values ? BlockValues::Places : BlockValues::Skipped;
    for_each_selected_block(reader, selector, trace, selected, values, [&](size_t) {
      if (cols.with_values) logged.index(trace);
      for (size_t i : selected) {
        event_row_refs(trace, trace.events[i], cols, ns_per_unit, layout, logged, decoded, row);
        visit(row);
      }
    });
  };
  size_t expected = 0;  // every event: an upper bound of the selected ones
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    expected += reader.block_summary(b).profile_events;
  }
  return report.table(cols.head, rows, row_memory_for(reader.size(), expected));
}

}  // namespace etkit::inspect
