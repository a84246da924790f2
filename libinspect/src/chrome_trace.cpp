#include "etkit/inspect/chrome_trace.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string_view>
#include <tuple>
#include <utility>

#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/event_table.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/inspect/operator_naming.h"
#include "selected_blocks.h"

namespace etkit::inspect {

namespace {

using json = nlohmann::ordered_json;
using namespace std::literals;

std::string dump_line(const json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The Chrome trace of a dump written in two passes over its selected events, each pass block by
// block (or all at once): `add_tracks` assigns the tracks (in order of first appearance) and
// finds the flow arrows, which need only the events of their own block; then the head (the
// track names), the events and the tail (the flows, `otherData`). Only the tracks and the flows
// are kept, never the events.
class ChromeTraceWriter {
 public:
  ChromeTraceWriter(const Trace& trace, const DebugMap* map)
      : path_(trace.path),
        ticks_recorded_(trace.ticks_recorded),
        ticks_per_second_(trace.ticks_per_second),
        map_(map) {}

  void add_tracks(const Trace& trace, const std::vector<size_t>& selected) {
    // The selected instruction events, to draw flow arrows from: (block, chain, instruction).
    issuers_.clear();
    for (size_t i : selected) {
      const TraceEvent& e = trace.events[i];
      if (is_instruction_event(e)) issuers_.emplace(std::tuple{e.block, e.chain, e.instruction}, i);
    }
    const size_t first_flow = flows_.size();
    for (size_t i : selected) {
      const TraceEvent& e = trace.events[i];
      const int64_t tid = tid_of(trace, e);
      if (event_device(e).empty() || e.instruction < 0) continue;
      auto issuer = issuers_.find(std::tuple{e.block, e.chain, e.instruction});
      if (issuer == issuers_.end()) continue;
      // A flow arrow from the instruction to the device event; the instruction's track is
      // known once every event has been given one (it may come later).
      const TraceEvent& from = trace.events[issuer->second];
      flows_.push_back({from.start_ns / 1e3, static_cast<int64_t>(issuer->second), tid,
                        e.start_ns / 1e3});
    }
    for (size_t k = first_flow; k < flows_.size(); ++k) {
      flows_[k].from_tid = tid_of(trace, trace.events[static_cast<size_t>(flows_[k].from_tid)]);
    }
  }

  template <typename Write>
  void write_head(Write&& write) {
    write("{\"traceEvents\": [\n");
    json process = {{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 0},
                    {"args", {{"name", path_}}}};
    write(dump_line(process));
    for (size_t t = 0; t < track_names_.size(); ++t) {
      const int64_t tid = static_cast<int64_t>(t + 1);
      write(",\n");
      write(dump_line({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid},
                       {"args", {{"name", track_names_[t]}}}}));
      write(",\n");
      write(dump_line({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 1}, {"tid", tid},
                       {"args", {{"sort_index", tid}}}}));
    }
  }

  template <typename Write>
  void write_events(const Trace& trace, const std::vector<size_t>& selected, Write&& write) {
    std::string line;
    for (size_t i : selected) {
      const TraceEvent& e = trace.events[i];
      const TraceBlock& b = trace.blocks[e.block];
      const std::string_view device = event_device(e);
      if (map_ == nullptr && fast_line(trace, e, b, device, line)) {
        write(line);
        continue;
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
      ev["tid"] = tid_of(trace, e);
      json args;
      args["block"] = e.block;
      args["kind"] = std::string(block_kind(b));
      if (!b.load) args["iteration"] = b.iteration;
      if (e.instruction >= 0) args["instruction"] = e.instruction;
      if (!e.op.empty()) args["op"] = e.op;
      if (!e.delegate_id.empty()) args["delegate_id"] = e.delegate_id;
      if (!device.empty()) args["device"] = std::string(device);
      if (map_ != nullptr) {
        const std::span<const uint32_t> handles = event_debug_handles(trace, e, *map_);
        if (!handles.empty()) {
          args["debug_handles"] = json(std::vector<uint32_t>(handles.begin(), handles.end()));
          args["ops"] = node_names_text(*map_, b.method, handles);
        }
      }
      ev["args"] = std::move(args);
      write(",\n");
      write(dump_line(ev));
    }
  }

  template <typename Write>
  void write_tail(Write&& write) {
    // Flow ids count from 1.
    for (size_t k = 0; k < flows_.size(); ++k) {
      const Flow& f = flows_[k];
      const auto id = static_cast<int64_t>(k + 1);
      write(",\n");
      write(dump_line({{"name", "issue"}, {"cat", "flow"}, {"ph", "s"}, {"id", id}, {"pid", 1},
                       {"tid", f.from_tid}, {"ts", f.from_ts}}));
      write(",\n");
      write(dump_line({{"name", "issue"}, {"cat", "flow"}, {"ph", "f"}, {"bp", "e"}, {"id", id},
                       {"pid", 1}, {"tid", f.tid}, {"ts", f.ts}}));
    }
    // One event per line: readable, diffable, and a fraction of the size of indented JSON.
    json other = {{"source", path_},
                  {"ticks_per_second",
                   ticks_recorded_ ? json(static_cast<uint64_t>(ticks_per_second_))
                                   : json(nullptr)}};
    write("\n],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": ");
    write(dump_line(other));
    write("}\n");
  }

 private:
  // `,\n` and the event's line as nlohmann's compact dump writes it, built by hand (an object
  // per event was most of the export's time); false, leaving it to nlohmann, when a string
  // needs escaping. Numbers: integers in decimal, times with nlohmann's own shortest
  // round-trip formatting.
  bool fast_line(const Trace& trace, const TraceEvent& e, const TraceBlock& b,
                 std::string_view device, std::string& line) {
    auto plain = [](std::string_view text) {
      for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7f || c == '"' || c == '\\') return false;
      }
      return true;
    };
    const std::string_view kind = block_kind(b);
    if (!plain(e.name) || !plain(e.op) || !plain(e.delegate_id) || !plain(device) ||
        !plain(kind)) {
      return false;
    }
    auto number = [&](double x) {
      if (!std::isfinite(x)) {
        line += "null"sv;
        return;
      }
      char buf[64];
      char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, x);
      line.append(buf, static_cast<size_t>(end - buf));
    };
    auto text = [&](std::string_view key, std::string_view value) {
      line += '"';
      line += key;
      line += "\":\""sv;
      line += value;
      line += '"';
    };
    auto integer = [&](std::string_view key, int64_t value) {
      line += '"';
      line += key;
      line += "\":"sv;
      char buf[24];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
      line.append(buf, static_cast<size_t>(end - buf));
    };
    line.clear();
    line += ",\n{"sv;
    text("name", e.name);
    line += ',';
    text("cat", !device.empty() ? "device"
                : e.delegate || e.op == "delegate" ? "delegate"
                : e.op.empty() ? "framework"
                               : "operator");
    line += ",\"ph\":\"X\",\"ts\":"sv;
    number(e.start_ns / 1e3);
    line += ",\"dur\":"sv;
    number(e.duration_ns / 1e3);
    line += ",\"pid\":1,"sv;
    integer("tid", tid_of(trace, e));
    line += ",\"args\":{"sv;
    integer("block", e.block);
    line += ',';
    text("kind", kind);
    if (!b.load) {
      line += ',';
      integer("iteration", b.iteration);
    }
    if (e.instruction >= 0) {
      line += ',';
      integer("instruction", e.instruction);
    }
    if (!e.op.empty()) {
      line += ',';
      text("op", e.op);
    }
    if (!e.delegate_id.empty()) {
      line += ',';
      text("delegate_id", e.delegate_id);
    }
    if (!device.empty()) {
      line += ',';
      text("device", device);
    }
    line += "}}"sv;
    return true;
  }

  // Tracks: (method, delegate instruction or -2 for the method, or -3 with the device for a
  // profiler device's events), numbered from 1 in order of first appearance.
  int64_t tid_of(const Trace& trace, const TraceEvent& e) {
    const std::string& method = trace.blocks[e.block].method;
    const std::string_view device = event_device(e);
    const int32_t instruction = !device.empty() ? -3 : e.delegate ? e.instruction : -2;
    // Most events are on the track of the event before them.
    if (last_tid_ > 0 && instruction == std::get<1>(key_) && method == std::get<0>(key_) &&
        device == std::get<2>(key_)) {
      return last_tid_;
    }
    last_tid_ = find_tid(method, instruction, device);
    return last_tid_;
  }

  int64_t find_tid(const std::string& method, int32_t instruction, std::string_view device) {
    key_ = {method, instruction, std::string(device)};
    auto it = tids_.find(key_);
    if (it != tids_.end()) return it->second;
    const auto tid = static_cast<int64_t>(tids_.size() + 1);
    tids_.emplace(key_, tid);
    track_names_.push_back(instruction == -3   ? method + ": device " + std::string(device)
                           : instruction == -2 ? method
                                               : method + ": delegate at instruction " +
                                                     std::to_string(instruction));
    return tid;
  }

  struct Flow {
    double from_ts;
    int64_t from_tid;
    int64_t tid;
    double ts;
  };
  std::string path_;
  bool ticks_recorded_;
  double ticks_per_second_;
  const DebugMap* map_;
  std::map<std::tuple<std::string, int32_t, std::string>, int64_t> tids_;
  std::tuple<std::string, int32_t, std::string> key_;  // that of `last_tid_`
  int64_t last_tid_ = 0;
  std::vector<std::string> track_names_;
  std::map<std::tuple<uint32_t, int32_t, int32_t>, size_t> issuers_;
  std::vector<Flow> flows_;
};

}  // namespace

std::string chrome_trace_json(const Trace& trace, const std::vector<size_t>& selected) {
  return chrome_trace_json(trace, selected, nullptr);
}

std::string chrome_trace_json(const Trace& trace, const std::vector<size_t>& selected,
                              const DebugMap* map) {
  std::string out;
  ChromeTraceWriter writer(trace, map);
  writer.add_tracks(trace, selected);
  writer.write_head([&](std::string_view s) { out += s; });
  writer.write_events(trace, selected, [&](std::string_view s) { out += s; });
  writer.write_tail([&](std::string_view s) { out += s; });
  return out;
}

Error write_chrome_trace(TraceReader& reader, const EventSelection& selection,
                         const std::function<void(std::string_view)>& write) {
  ETKIT_ASSIGN_OR_RETURN(EventSelector selector, EventSelector::make(selection));
  Trace trace = reader.skeleton();
  ChromeTraceWriter writer(trace, nullptr);
  std::vector<size_t> selected;
  // Tracks are named before the first event and flows follow the last: a first pass over the
  // blocks finds them, a second writes the events.
  for_each_selected_block(reader, selector, trace, selected,
                          [&](size_t) { writer.add_tracks(trace, selected); });
  std::string out;
  auto chunked = [&](std::string_view s) {
    out += s;
    if (out.size() >= (size_t{1} << 16)) {
      write(out);
      out.clear();
    }
  };
  writer.write_head(chunked);
  for_each_selected_block(reader, selector, trace, selected,
                          [&](size_t) { writer.write_events(trace, selected, chunked); });
  writer.write_tail(chunked);
  if (!out.empty()) write(out);
  return Error();
}

}  // namespace etkit::inspect
