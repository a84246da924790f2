#pragma once

// The report's JSON document as `report_data_json` built it before the report streamed: every
// part computed from the joined trace and assembled in one nlohmann document, dumped compactly.
// Kept here as the tests' independent oracle: the streamed report (`write_report_data` over
// `ReportFacts`, `report_timeline` and the streamed tables) must give its bytes.

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "etkit/inspect/event_table.h"
#include "etkit/inspect/operator_naming.h"
#include "etkit/inspect/report_data.h"
#include "etkit/inspect/stats.h"
#include "etkit/inspect/values.h"

namespace etkit::inspect::test {

namespace report_reference {

using json = nlohmann::ordered_json;

// The tables exactly as `--format json` prints them: the same renderer, parsed back (numbers are
// printed shortest-round-trip, so they parse to the same doubles).
inline json tables_json(const std::vector<Table>& tables,
                        const std::vector<std::string>& warnings) {
  if (tables.empty()) return json(nullptr);
  RenderOptions options;
  options.warnings = warnings;
  return json::parse(render(tables, Format::Json, options));
}

struct Iteration {
  uint32_t block = 0;
  uint32_t iteration = 0;
  double start_ns = 0, end_ns = 0;
  double time_ns() const { return end_ns - start_ns; }
};

// Measured complete iterations of each method among the selected events, in block order.
inline std::map<std::string, std::vector<Iteration>> iterations_of(
    const Trace& trace, const std::vector<size_t>& selected) {
  std::map<uint32_t, Iteration> by_block;
  for (size_t i : selected) {
    const TraceEvent& e = trace.events[i];
    const TraceBlock& b = trace.blocks[e.block];
    if (b.load || b.warmup || b.incomplete || e.device) continue;
    auto [it, added] = by_block.emplace(
        e.block, Iteration{e.block, b.iteration, e.start_ns, e.start_ns + e.duration_ns});
    if (!added) {
      it->second.start_ns = std::min(it->second.start_ns, e.start_ns);
      it->second.end_ns = std::max(it->second.end_ns, e.start_ns + e.duration_ns);
    }
  }
  std::map<std::string, std::vector<Iteration>> out;
  for (const auto& [block, it] : by_block) out[trace.blocks[block].method].push_back(it);
  return out;
}

inline json iterations_json(const std::map<std::string, std::vector<Iteration>>& methods) {
  json out = json::array();
  for (const auto& [method, its] : methods) {
    std::vector<double> times;
    for (const Iteration& it : its) times.push_back(it.time_ns());
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    double total = 0;
    for (double t : times) total += t;
    out.push_back({{"method", method},
                   {"iterations", its.size()},
                   {"total_ns", total},
                   {"p50_ns", percentile(sorted, 50)},
                   {"p90_ns", percentile(sorted, 90)},
                   {"time_ns", times}});
  }
  return out;
}

// The timeline's iteration: the one asked for, else the lower median (ties by iteration).
inline Result<Iteration> pick_iteration(
    const Trace& trace, const std::map<std::string, std::vector<Iteration>>& methods,
    const ReportOptions& options, std::string& method) {
  method = options.method;
  if (method.empty()) {
    // The first method in block order.
    uint32_t first = std::numeric_limits<uint32_t>::max();
    for (const auto& [m, its] : methods) {
      if (its.front().block < first) {
        first = its.front().block;
        method = m;
      }
    }
  }
  auto it = methods.find(method);
  if (it == methods.end()) {
    const std::string message = trace.path + ": no measured complete iteration" +
                                (method.empty() ? std::string() : " of method '" + method + "'") +
                                " to draw a timeline of";
    return Error(ErrorCode::InvalidArgument, "%s", message.c_str());
  }
  const std::vector<Iteration>& its = it->second;
  if (options.iteration >= 0) {
    for (const Iteration& i : its) {
      if (i.iteration == options.iteration) return i;
    }
    const std::string message =
        trace.path + ": method '" + method + "' has no measured complete iteration " +
        std::to_string(options.iteration) + " (it has " + std::to_string(its.size()) + ")";
    return Error(ErrorCode::InvalidArgument, "%s", message.c_str());
  }
  std::vector<Iteration> sorted = its;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Iteration& a, const Iteration& b) {
    return a.time_ns() != b.time_ns() ? a.time_ns() < b.time_ns() : a.iteration < b.iteration;
  });
  return sorted[(sorted.size() - 1) / 2];
}

inline std::string track_of(const TraceEvent& e) {
  const std::string_view device = event_device(e);
  if (!device.empty()) return "device:" + std::string(device);
  return e.delegate ? "delegate" : "host";
}

inline json handles_json(const Trace& trace, const TraceEvent& e, const DebugMap* map, json& ops) {
  ops = json(nullptr);
  if (map == nullptr) return json(nullptr);
  const std::span<const uint32_t> handles = event_debug_handles(trace, e, *map);
  if (handles.empty()) return json(nullptr);
  ops = node_names_text(*map, trace.blocks[e.block].method, handles);
  return json(std::vector<uint32_t>(handles.begin(), handles.end()));
}

inline json timeline_json(const ReportDump& dump, const Iteration& iteration,
                          const std::string& method, const ReportOptions& options,
                          json& delegates) {
  const Trace& trace = *dump.trace;
  std::vector<size_t> events;
  for (size_t i : dump.selected) {
    if (trace.events[i].block == iteration.block) events.push_back(i);
  }
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
  // Spans as rows of a few columns: a large timeline stays small.
  json spans = json::array();
  delegates = json::array();
  for (size_t i : events) {
    const TraceEvent& e = trace.events[i];
    json ops;
    json handles = handles_json(trace, e, dump.map, ops);
    spans.push_back({e.start_ns - iteration.start_ns, e.duration_ns, e.self_ns, e.depth,
                     track_of(e), std::string(e.name), std::string(e.op), e.instruction, handles,
                     ops});
    if (e.delegate && !e.device) {
      delegates.push_back({{"instruction", e.instruction},
                           {"name", std::string(e.name)},
                           {"start_ns", e.start_ns - iteration.start_ns},
                           {"duration_ns", e.duration_ns},
                           {"self_ns", e.self_ns},
                           {"debug_handles", handles},
                           {"ops", ops}});
    }
  }
  return {{"method", method},
          {"iteration", iteration.iteration},
          {"block", iteration.block},
          {"time_ns", iteration.time_ns()},
          {"spans_total", total},
          {"spans_shown", events.size()},
          {"columns",
           {"start_ns", "duration_ns", "self_ns", "depth", "track", "name", "op", "instruction",
            "debug_handles", "ops"}},
          {"spans", std::move(spans)},
          {"omitted", std::move(omitted)}};
}

// Each operator's time per measured iteration: its instructions' outermost events summed.
inline json distribution_json(const Trace& trace, const std::vector<size_t>& selected,
                              const ReportOptions& options) {
  std::map<std::string, std::map<uint32_t, double>> per_op;  // op -> block -> time
  std::map<std::string, double> totals;
  for (size_t i : selected) {
    const TraceEvent& e = trace.events[i];
    const TraceBlock& b = trace.blocks[e.block];
    if (b.load || b.warmup || b.incomplete || e.device || e.op.empty()) continue;
    if (!is_instruction_event(e)) continue;
    const std::string key = b.method + ":" + std::string(e.op);
    per_op[key][e.block] += e.duration_ns;
    totals[key] += e.duration_ns;
  }
  std::vector<std::pair<std::string, double>> order(totals.begin(), totals.end());
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (order.size() > options.max_operators) order.resize(options.max_operators);
  json out = json::array();
  for (const auto& [key, total] : order) {
    std::vector<double> samples;
    for (const auto& [block, t] : per_op[key]) samples.push_back(t);
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
    const size_t colon = key.find(':');
    out.push_back({{"method", key.substr(0, colon)},
                   {"operator", key.substr(colon + 1)},
                   {"iterations", n},
                   {"total_ns", total},
                   {"sampled", sampled},
                   {"time_ns", std::move(samples)}});
  }
  return out;
}

inline json histograms_json(const ReportDump& dump, const ReportOptions& options) {
  json out = json::array();
  if (dump.buffer == nullptr) return out;
  for (const TraceValue& v : dump.trace->values) {
    if (out.size() >= options.max_histograms) break;
    if (v.kind != LoggedValue::Kind::Tensor && v.kind != LoggedValue::Kind::TensorList) continue;
    Result<std::vector<double>> elements = value_elements(v, *dump.buffer);
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
    out.push_back({{"block", v.block},
                   {"value", v.index},
                   {"list_index", v.list_index},
                   {"min", lo <= hi ? json(lo) : json(nullptr)},
                   {"max", lo <= hi ? json(hi) : json(nullptr)},
                   {"bins", bins}});
  }
  return out;
}

}  // namespace report_reference

// The document of `dumps` (and `comparison`), every part from the joined traces.
inline Result<std::string> reference_report_data_json(const std::vector<ReportDump>& dumps,
                                                      const ReportComparison* comparison,
                                                      const ReportOptions& options) {
  using namespace report_reference;
  json out;
  out["etkit_report"] = 1;
  out["limits"] = {{"max_spans", options.max_spans},
                   {"max_operators", options.max_operators},
                   {"max_samples", options.max_samples},
                   {"max_histograms", options.max_histograms}};
  json list = json::array();
  for (const ReportDump& dump : dumps) {
    const auto methods = iterations_of(*dump.trace, dump.selected);
    std::string method;
    json delegates = json::array();
    json timeline(nullptr);
    // Nothing measured and nothing asked for: a page without a timeline, not an error.
    if (!methods.empty() || options.iteration >= 0 || !options.method.empty()) {
      Result<Iteration> iteration = pick_iteration(*dump.trace, methods, options, method);
      if (!iteration.ok()) return iteration.error();
      timeline = timeline_json(dump, *iteration, method, options, delegates);
    }
    list.push_back({{"path", dump.trace->path},
                    {"info", tables_json(dump.info, {})},
                    {"iterations", iterations_json(methods)},
                    {"stats", tables_json(dump.stats, dump.warnings)},
                    {"timeline", std::move(timeline)},
                    {"distribution", distribution_json(*dump.trace, dump.selected, options)},
                    {"delegates", std::move(delegates)},
                    {"values", tables_json(dump.values, {})},
                    {"histograms", histograms_json(dump, options)}});
  }
  out["dumps"] = std::move(list);
  if (comparison != nullptr) {
    out["comparison"] = {{"diff", tables_json(comparison->diff, {})},
                         {"diff_verdict", comparison->diff_verdict},
                         {"compare", tables_json(comparison->compare, {})},
                         {"compare_verdict", comparison->compare_verdict}};
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace etkit::inspect::test
