#include "etkit/inspect/chrome_trace.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <span>
#include <string_view>
#include <tuple>
#include <utility>

#include "etkit/inspect/event_table.h"
#include "etkit/inspect/operator_naming.h"

namespace etkit::inspect {

namespace {

}  // namespace

std::string chrome_trace_json(const Trace& trace, const std::vector<size_t>& selected) {
  return chrome_trace_json(trace, selected, nullptr);
}

std::string chrome_trace_json(const Trace& trace, const std::vector<size_t>& selected,
                              const DebugMap* map) {
  using json = nlohmann::ordered_json;
  // Tracks in order of first appearance: (method, delegate instruction or -2 for the method,
  // or -3 with the device for a profiler device's events).
  std::map<std::tuple<std::string, int32_t, std::string>, int64_t> tids;
  std::vector<std::string> track_names;
  auto tid_of = [&](const std::string& method, int32_t delegate_instruction,
                    const std::string& device) {
    auto [it, added] = tids.emplace(std::tuple{method, delegate_instruction, device},
                                    static_cast<int64_t>(tids.size() + 1));
    if (added) {
      track_names.push_back(delegate_instruction == -3 ? method + ": device " + device
                            : delegate_instruction == -2
                                ? method
                                : method + ": delegate at instruction " +
                                      std::to_string(delegate_instruction));
    }
    return it->second;
  };

  // The selected instruction events, to draw flow arrows from: (block, chain, instruction).
  std::map<std::tuple<uint32_t, int32_t, int32_t>, size_t> issuers;
  for (size_t i : selected) {
    const TraceEvent& e = trace.events[i];
    if (is_instruction_event(e)) issuers.emplace(std::tuple{e.block, e.chain, e.instruction}, i);
  }

  json events = json::array();
  json flows = json::array();
  std::map<size_t, int64_t> event_tids;  // issuing instruction events' tracks
  for (size_t i : selected) {
    const TraceEvent& e = trace.events[i];
    const TraceBlock& b = trace.blocks[e.block];
    const std::string device(event_device(e));
    const int64_t tid = !device.empty() ? tid_of(b.method, -3, device)
                                        : tid_of(b.method, e.delegate ? e.instruction : -2, "");
    if (is_instruction_event(e)) event_tids[i] = tid;
    if (!device.empty() && e.instruction >= 0) {
      auto issuer = issuers.find(std::tuple{e.block, e.chain, e.instruction});
      if (issuer != issuers.end()) {
        // A flow arrow from the instruction to the device event; ids count from 1.
        const TraceEvent& from = trace.events[issuer->second];
        const auto id = static_cast<int64_t>(flows.size() / 2 + 1);
        flows.push_back({{"name", "issue"}, {"cat", "flow"}, {"ph", "s"}, {"id", id},
                         {"pid", 1}, {"tid", issuer->second}, {"ts", from.start_ns / 1e3}});
        flows.push_back({{"name", "issue"}, {"cat", "flow"}, {"ph", "f"}, {"bp", "e"},
                         {"id", id}, {"pid", 1}, {"tid", tid}, {"ts", e.start_ns / 1e3}});
      }
    }
    json ev;
    ev["name"] = e.name;
    ev["cat"] = !device.empty() ? "device"
                : e.delegate || e.op == "delegate" ? "delegate"
                : e.op.empty() ? "framework"
                               : "operator";
    ev["ph"] = "X";
    ev["ts"] = e.start_ns / 1e3;
    ev["dur"] = e.duration_ns / 1e3;
    ev["pid"] = 1;
    ev["tid"] = tid;
    json args;
    args["block"] = e.block;
    args["kind"] = std::string(block_kind(b));
    if (!b.load) args["iteration"] = b.iteration;
    if (e.instruction >= 0) args["instruction"] = e.instruction;
    if (!e.op.empty()) args["op"] = e.op;
    if (!e.delegate_id.empty()) args["delegate_id"] = e.delegate_id;
    if (!device.empty()) args["device"] = device;
    if (map != nullptr) {
      const std::span<const uint32_t> handles = event_debug_handles(trace, e, *map);
      if (!handles.empty()) {
        args["debug_handles"] = json(std::vector<uint32_t>(handles.begin(), handles.end()));
        args["ops"] = node_names_text(*map, b.method, handles);
      }
    }
    ev["args"] = std::move(args);
    events.push_back(std::move(ev));
  }
  // Flow starts were written with the issuing event's index: now its track.
  for (json& f : flows) {
    if (f["ph"] == "s") f["tid"] = event_tids.at(f["tid"].get<size_t>());
    events.push_back(std::move(f));
  }
  json meta = json::array();
  meta.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 0},
                  {"args", {{"name", trace.path}}}});
  for (size_t t = 0; t < track_names.size(); ++t) {
    const int64_t tid = static_cast<int64_t>(t + 1);
    meta.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid},
                    {"args", {{"name", track_names[t]}}}});
    meta.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 1}, {"tid", tid},
                    {"args", {{"sort_index", tid}}}});
  }
  for (json& ev : events) meta.push_back(std::move(ev));
  // One event per line: readable, diffable, and a fraction of the size of indented JSON.
  json other = {{"source", trace.path},
                {"ticks_per_second",
                 trace.ticks_recorded ? json(static_cast<uint64_t>(trace.ticks_per_second))
                                      : json(nullptr)}};
  std::string out = "{\"traceEvents\": [\n";
  for (size_t i = 0; i < meta.size(); ++i) {
    out += meta[i].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out += i + 1 < meta.size() ? ",\n" : "\n";
  }
  out += "],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": " + other.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "}\n";
  return out;
}

}  // namespace etkit::inspect
