#include "etkit/inspect/report_data.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "etkit/inspect/event_table.h"
#include "etkit/inspect/operator_naming.h"
#include "etkit/inspect/stats.h"
#include "etkit/inspect/json_number.h"
#include "etkit/inspect/values.h"
#include "decimal_digits.h"
#include "json_table_writer.h"
#include "text_sink.h"

namespace etkit::inspect {

namespace {

using json = nlohmann::ordered_json;

// A piece of the document as the whole document's compact dump writes it (nlohmann's dump is
// the same for a value alone and inside its parent).
std::string text_of(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Tables as `--format json` prints them, compacted, or null for none.
void write_tables(const std::vector<Table>& tables, const std::vector<std::string>& warnings,
                  const ReportTextWriter& write) {
  if (tables.empty()) {
    write("null");
    return;
  }
  RenderOptions options = report_json_options();
  options.warnings = warnings;
  render(tables, Format::Json, options, write);
}

std::string track_of(const TraceEvent& e) {
  const std::string_view device = event_device(e);
  if (!device.empty()) return "device:" + std::string(device);
  return e.delegate ? "delegate" : "host";
}

// The debug handles of `e` through `map` (none without one), and their nodes' names in `ops`
// (empty when there are no handles).
std::span<const uint32_t> handles_of(const Trace& trace, const TraceEvent& e, const DebugMap* map,
                                     std::string& ops) {
  ops.clear();
  if (map == nullptr) return {};
  const std::span<const uint32_t> handles = event_debug_handles(trace, e, *map);
  if (!handles.empty()) ops = node_names_text(*map, trace.blocks[e.block].method, handles);
  return handles;
}

// A number as the compact dump writes a double: null when not finite.
void put_json_number(detail::TextSink& out, double x) {
  char* p = out.reserve(32);
  out.commit(std::isfinite(x) ? json_number_chars(p, x) : detail::put_chars(p, "null"));
}

void put_json_integer(detail::TextSink& out, int64_t v) {
  out.commit(detail::put_integer(out.reserve(24), v));
}

// A span of the timeline as the compact dump writes its row (start, duration, self, depth,
// track, name, op, instruction, debug handles, ops): written by hand, as a timeline of 20,000
// spans built as a document and dumped had cost 13,000 instructions a span.
void put_span(detail::TextSink& out, const TraceEvent& e, double origin,
              std::span<const uint32_t> handles, const std::string& ops) {
  out.put("[");
  put_json_number(out, e.start_ns - origin);
  out.put(",");
  put_json_number(out, e.duration_ns);
  out.put(",");
  put_json_number(out, e.self_ns);
  out.put(",");
  put_json_integer(out, e.depth);
  out.put(",");
  detail::put_json_string(out, track_of(e));
  out.put(",");
  detail::put_json_string(out, e.name);
  out.put(",");
  detail::put_json_string(out, e.op);
  out.put(",");
  put_json_integer(out, e.instruction);
  if (handles.empty()) {
    out.put(",null,null]");
    return;
  }
  out.put(",[");
  for (size_t k = 0; k < handles.size(); ++k) {
    if (k > 0) out.put(",");
    put_json_integer(out, handles[k]);
  }
  out.put("],");
  detail::put_json_string(out, ops);
  out.put("]");
}

}  // namespace

RenderOptions report_json_options() {
  RenderOptions options;
  options.compact_json = true;
  return options;
}

void ReportFacts::add_block(const Trace& trace, size_t b, std::span<const size_t> selected) {
  const TraceBlock& block = trace.blocks[b];
  if (block.load || block.warmup || block.incomplete) return;
  // The iteration: first start to last end of the block's selected host events.
  bool any = false;
  Span span{static_cast<uint32_t>(b), block.iteration, 0, 0};
  // The operators' times, each event added to its operator's total in event order and to the
  // block's time, as the sums over the joined trace were made. Operators are found by their
  // text's address (interned), then by the text.
  struct Alias {
    const char* op = nullptr;
    size_t size = 0;
    size_t slot = 0;
  };
  std::vector<Alias> aliases;
  std::vector<std::pair<size_t, double>> slots;  // operator index, its time in the block
  for (size_t i : selected) {
    const TraceEvent& e = trace.events[i];
    if (e.device) continue;
    if (!any) {
      span.start_ns = e.start_ns;
      span.end_ns = e.start_ns + e.duration_ns;
      any = true;
    } else {
      span.start_ns = std::min(span.start_ns, e.start_ns);
      span.end_ns = std::max(span.end_ns, e.start_ns + e.duration_ns);
    }
    if (e.op.empty() || !is_instruction_event(e)) continue;
    size_t k = 0;
    while (k < aliases.size() && (aliases[k].op != e.op.data() || aliases[k].size != e.op.size())) {
      ++k;
    }
    if (k == aliases.size()) {
      const std::string key = block.method + ":" + std::string(e.op);
      auto [it, added] = op_index_.emplace(key, ops_.size());
      if (added) ops_.push_back(Op{key, {}, 0});
      size_t slot = 0;
      while (slot < slots.size() && slots[slot].first != it->second) ++slot;
      if (slot == slots.size()) slots.emplace_back(it->second, 0.0);
      aliases.push_back(Alias{e.op.data(), e.op.size(), slot});
    }
    std::pair<size_t, double>& slot = slots[aliases[k].slot];
    slot.second += e.duration_ns;
    ops_[slot.first].total += e.duration_ns;
  }
  if (any) methods_[block.method].push_back(span);
  for (const auto& [index, time] : slots) ops_[index].times.push_back(time);
}

void ReportFacts::add_histograms(const Trace& trace, const DebugBuffer& buffer,
                                 const ReportOptions& options) {
  for (const TraceValue& v : trace.values) {
    if (histogram_count_ >= options.max_histograms) break;
    if (v.kind != LoggedValue::Kind::Tensor && v.kind != LoggedValue::Kind::TensorList) continue;
    Result<std::vector<double>> elements = value_elements(v, buffer);
    if (!elements.ok()) continue;
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (double x : *elements) {
      if (std::isfinite(x)) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
    }
    std::vector<uint64_t> bins(kHistogramBins, 0);
    if (lo <= hi) {
      const double width = (hi - lo) / static_cast<double>(kHistogramBins);
      for (double x : *elements) {
        if (!std::isfinite(x)) continue;
        size_t k = width > 0 ? static_cast<size_t>((x - lo) / width) : 0;
        bins[std::min(k, kHistogramBins - 1)] += 1;
      }
    }
    if (histogram_count_ > 0) histograms_ += ',';
    histograms_ += text_of({{"block", v.block},
                            {"value", v.index},
                            {"list_index", v.list_index},
                            {"min", lo <= hi ? json(lo) : json(nullptr)},
                            {"max", lo <= hi ? json(hi) : json(nullptr)},
                            {"bins", bins}});
    ++histogram_count_;
  }
}

bool ReportFacts::histograms_full(const ReportOptions& options) const {
  return histogram_count_ >= options.max_histograms;
}

Result<std::optional<ReportIteration>> ReportFacts::timeline_iteration(
    const std::string& path, const ReportOptions& options) const {
  // Nothing measured and nothing asked for: a page without a timeline, not an error.
  if (methods_.empty() && options.iteration < 0 && options.method.empty()) {
    return std::optional<ReportIteration>();
  }
  std::string method = options.method;
  if (method.empty()) {
    // The first method in block order.
    uint32_t first = std::numeric_limits<uint32_t>::max();
    for (const auto& [m, spans] : methods_) {
      if (spans.front().block < first) {
        first = spans.front().block;
        method = m;
      }
    }
  }
  auto it = methods_.find(method);
  if (it == methods_.end()) {
    const std::string message = path + ": no measured complete iteration" +
                                (method.empty() ? std::string() : " of method '" + method + "'") +
                                " to draw a timeline of";
    return Error(ErrorCode::InvalidArgument, "%s", message.c_str());
  }
  const std::vector<Span>& spans = it->second;
  auto chosen = [&](const Span& s) {
    return std::optional<ReportIteration>(
        ReportIteration{method, s.block, s.iteration, s.start_ns, s.end_ns});
  };
  if (options.iteration >= 0) {
    for (const Span& s : spans) {
      if (s.iteration == options.iteration) return chosen(s);
    }
    const std::string message = path + ": method '" + method +
                                "' has no measured complete iteration " +
                                std::to_string(options.iteration) + " (it has " +
                                std::to_string(spans.size()) + ")";
    return Error(ErrorCode::InvalidArgument, "%s", message.c_str());
  }
  std::vector<Span> sorted = spans;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Span& a, const Span& b) {
    const double ta = a.end_ns - a.start_ns, tb = b.end_ns - b.start_ns;
    return ta != tb ? ta < tb : a.iteration < b.iteration;
  });
  return chosen(sorted[(sorted.size() - 1) / 2]);
}

std::string ReportFacts::iterations_json() const {
  json out = json::array();
  for (const auto& [method, spans] : methods_) {
    std::vector<double> times;
    for (const Span& s : spans) times.push_back(s.end_ns - s.start_ns);
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    double total = 0;
    for (double t : times) total += t;
    out.push_back({{"method", method},
                   {"iterations", spans.size()},
                   {"total_ns", total},
                   {"p50_ns", percentile(sorted, 50)},
                   {"p90_ns", percentile(sorted, 90)},
                   {"time_ns", times}});
  }
  return text_of(out);
}

// Each operator's time per measured iteration: its instructions' outermost events summed.
std::string ReportFacts::distribution_json(const ReportOptions& options) const {
  // By key, then by total time (descending, stable).
  std::vector<const Op*> order;
  for (const auto& [key, index] : op_index_) order.push_back(&ops_[index]);
  std::stable_sort(order.begin(), order.end(),
                   [](const Op* a, const Op* b) { return a->total > b->total; });
  if (order.size() > options.max_operators) order.resize(options.max_operators);
  json out = json::array();
  for (const Op* op : order) {
    std::vector<double> samples = op->times;
    const size_t n = samples.size();
    bool sampled = false;
    if (n > options.max_samples && options.max_samples >= 2) {
      std::vector<double> kept;
      for (size_t k = 0; k < options.max_samples; ++k) {
        kept.push_back(samples[k * (n - 1) / (options.max_samples - 1)]);
      }
      samples = std::move(kept);
      sampled = true;
    }
    const size_t colon = op->key.find(':');
    out.push_back({{"method", op->key.substr(0, colon)},
                   {"operator", op->key.substr(colon + 1)},
                   {"iterations", n},
                   {"total_ns", op->total},
                   {"sampled", sampled},
                   {"time_ns", std::move(samples)}});
  }
  return text_of(out);
}

ReportTimeline report_timeline(const Trace& trace, std::span<const size_t> selected,
                               const DebugMap* map, const ReportIteration& iteration,
                               const ReportOptions& options) {
  std::vector<size_t> events(selected.begin(), selected.end());
  const size_t total = events.size();
  json omitted = json::array();
  if (events.size() > options.max_spans) {
    std::vector<size_t> by_length = events;
    std::stable_sort(by_length.begin(), by_length.end(), [&](size_t a, size_t b) {
      return trace.events[a].duration_ns > trace.events[b].duration_ns;
    });
    std::map<std::string, std::pair<size_t, double>> rest;  // name -> count, total
    for (size_t k = options.max_spans; k < by_length.size(); ++k) {
      const TraceEvent& e = trace.events[by_length[k]];
      auto& [count, sum] = rest[std::string(e.name)];
      ++count;
      sum += e.duration_ns;
    }
    for (const auto& [name, cs] : rest) {
      omitted.push_back({{"name", name}, {"count", cs.first}, {"total_ns", cs.second}});
    }
    by_length.resize(options.max_spans);
    std::sort(by_length.begin(), by_length.end());
    events = std::move(by_length);
  }
  // The timeline object as the compact dump writes it, its spans (rows of a few columns: a
  // large timeline stays small) written by hand between the members before and after them.
  const json head = {
      {"method", iteration.method},
      {"iteration", iteration.iteration},
      {"block", iteration.block},
      {"time_ns", iteration.end_ns - iteration.start_ns},
      {"spans_total", total},
      {"spans_shown", events.size()},
      {"columns", {"start_ns", "duration_ns", "self_ns", "depth", "track", "name", "op",
                   "instruction", "debug_handles", "ops"}}};
  ReportTimeline out;
  out.timeline = text_of(head);
  out.timeline.pop_back();  // the closing brace
  out.timeline += ",\"spans\":[";
  const std::function<void(std::string_view)> append = [&out](std::string_view piece) {
    out.timeline += piece;
  };
  detail::TextSink sink(append);  // holds `append` by reference
  json delegates = json::array();
  std::string ops;
  for (size_t k = 0; k < events.size(); ++k) {
    const TraceEvent& e = trace.events[events[k]];
    const std::span<const uint32_t> handles = handles_of(trace, e, map, ops);
    if (k > 0) sink.put(",");
    put_span(sink, e, iteration.start_ns, handles, ops);
    if (e.delegate && !e.device) {
      const json none(nullptr);
      delegates.push_back(
          {{"instruction", e.instruction},
           {"name", std::string(e.name)},
           {"start_ns", e.start_ns - iteration.start_ns},
           {"duration_ns", e.duration_ns},
           {"self_ns", e.self_ns},
           {"debug_handles",
            handles.empty() ? none : json(std::vector<uint32_t>(handles.begin(), handles.end()))},
           {"ops", handles.empty() ? none : json(ops)}});
    }
  }
  sink.flush();
  out.timeline += "],\"omitted\":";
  out.timeline += text_of(omitted);
  out.timeline += "}";
  out.delegates = text_of(delegates);
  return out;
}

Error write_report_data(const std::vector<ReportDumpPart>& dumps,
                        const ReportComparisonPart* comparison, const ReportOptions& options,
                        const ReportTextWriter& write) {
  write("{\"etkit_report\":1,\"limits\":");
  write(text_of({{"max_spans", options.max_spans},
                 {"max_operators", options.max_operators},
                 {"max_samples", options.max_samples},
                 {"max_histograms", options.max_histograms}}));
  write(",\"dumps\":[");
  for (size_t i = 0; i < dumps.size(); ++i) {
    const ReportDumpPart& d = dumps[i];
    write(i == 0 ? "{\"path\":" : ",{\"path\":");
    write(text_of(d.path));
    write(",\"info\":");
    write_tables(d.info, {}, write);
    write(",\"iterations\":");
    write(d.facts->iterations_json());
    write(",\"stats\":");
    write_tables(d.stats, d.warnings, write);
    write(",\"timeline\":");
    write(d.timeline.timeline);
    write(",\"distribution\":");
    write(d.facts->distribution_json(options));
    write(",\"delegates\":");
    write(d.timeline.delegates);
    write(",\"values\":");
    if (d.values) {
      const Error e = d.values(write);
      if (!e.ok()) return e;
    } else {
      write("null");
    }
    write(",\"histograms\":");
    write(d.facts->histograms_json());
    write("}");
  }
  write("]");
  if (comparison != nullptr) {
    write(",\"comparison\":{\"diff\":");
    if (const Error e = comparison->diff(write); !e.ok()) return e;
    write(",\"diff_verdict\":");
    write(text_of(comparison->diff_verdict));
    write(",\"compare\":");
    std::string verdict;
    if (comparison->compare) {
      Result<std::string> v = comparison->compare(write);
      if (!v.ok()) return v.error();
      verdict = std::move(v).get();
    } else {
      write("null");
    }
    write(",\"compare_verdict\":");
    write(text_of(verdict));
    write("}");
  }
  write("}");
  return Error();
}

Result<std::string> report_data_json(const std::vector<ReportDump>& dumps,
                                     const ReportComparison* comparison,
                                     const ReportOptions& options) {
  std::vector<ReportFacts> facts(dumps.size());
  std::vector<ReportDumpPart> parts(dumps.size());
  for (size_t k = 0; k < dumps.size(); ++k) {
    const ReportDump& dump = dumps[k];
    const Trace& trace = *dump.trace;
    // The selected events of each block, in their order.
    std::vector<std::vector<size_t>> by_block(trace.blocks.size());
    for (size_t i : dump.selected) by_block[trace.events[i].block].push_back(i);
    for (size_t b = 0; b < by_block.size(); ++b) facts[k].add_block(trace, b, by_block[b]);
    if (dump.buffer != nullptr) facts[k].add_histograms(trace, *dump.buffer, options);
    ReportDumpPart& part = parts[k];
    Result<std::optional<ReportIteration>> iteration =
        facts[k].timeline_iteration(trace.path, options);
    if (!iteration.ok()) return iteration.error();
    if (*iteration) {
      part.timeline =
          report_timeline(trace, by_block[(*iteration)->block], dump.map, **iteration, options);
    }
    part.path = trace.path;
    part.info = dump.info;
    part.stats = dump.stats;
    part.warnings = dump.warnings;
    part.facts = &facts[k];
    if (!dump.values.empty()) {
      part.values = [&dump](const ReportTextWriter& write) {
        render(dump.values, Format::Json, report_json_options(), write);
        return Error();
      };
    }
  }
  std::optional<ReportComparisonPart> compared;
  if (comparison != nullptr) {
    compared.emplace();
    compared->diff = [comparison](const ReportTextWriter& write) {
      write_tables(comparison->diff, {}, write);
      return Error();
    };
    compared->diff_verdict = comparison->diff_verdict;
    if (!comparison->compare.empty()) {
      compared->compare = [comparison](const ReportTextWriter& write) -> Result<std::string> {
        render(comparison->compare, Format::Json, report_json_options(), write);
        return comparison->compare_verdict;
      };
    }
  }
  std::string out;
  const Error e = write_report_data(parts, compared ? &*compared : nullptr, options,
                                    [&](std::string_view piece) { out += piece; });
  if (!e.ok()) return e;
  return out;
}

}  // namespace etkit::inspect
