#include "etkit/inspect/chrome_trace.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string_view>
#include <tuple>
#include <utility>

#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/event_table.h"
#include "etkit/inspect/json_number.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/inspect/operator_naming.h"
#include "block_join.h"
#include "decimal_digits.h"
#include "json_plain.h"
#include "selected_blocks.h"
#include "text_sink.h"

namespace etkit::inspect {

namespace {

using json = nlohmann::ordered_json;
using detail::kDelegateOp;
using detail::put_chars;
using detail::TextSink;

std::string dump_line(const json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Copies the literal `s` (without its terminating NUL) to `p`; returns the end.
template <size_t N>
char* put_literal(char* p, const char (&s)[N]) {
  std::memcpy(p, s, N - 1);
  return p + (N - 1);
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

  // The track of a method's host events, as `add_tracks` gives it to the first one.
  void add_method_track(const std::string& method) {
    last_tid_ = find_tid(method, -2, {});
    last_block_ = kNoBlock;
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
  void write_events(const Trace& trace, const std::vector<size_t>& selected, TextSink& sink,
                    Write&& write) {
    for (size_t i : selected) {
      const TraceEvent& e = trace.events[i];
      const TraceBlock& b = trace.blocks[e.block];
      const std::string_view device = event_device(e);
      if (map_ == nullptr && fast_line(trace, e, b, device, sink)) continue;
      json ev;
      ev["name"] = e.name;
      ev["cat"] = category(e, device);
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
  static std::string_view category(const TraceEvent& e, std::string_view device) {
    return !device.empty()                    ? "device"
           : e.delegate || e.op == kDelegateOp ? "delegate"
           : e.op.empty()                      ? "framework"
                                               : "operator";
  }

  // `,\n` and the event's line as nlohmann's compact dump writes it, written by hand straight
  // into `sink` (an object per event was most of the export's time); false, leaving it to
  // nlohmann, when a string needs escaping. Numbers: integers in decimal, times as nlohmann
  // prints them (`json_micros_chars`). The constant text is copied in pieces of known size
  // (a few stores each, not a call), and the block's part of `args` is made once per block.
  bool fast_line(const Trace& trace, const TraceEvent& e, const TraceBlock& b,
                 std::string_view device, TextSink& sink) {
    using detail::json_plain;
    if (e.block != args_block_) set_block_args(e.block, b);
    // The device is part of the name (`prof:<device>:<event>`), so it is checked with it.
    if (!block_args_plain_ || !json_plain(e.name) || !json_plain(e.op) ||
        !json_plain(e.delegate_id)) {
      return false;
    }
    const int64_t tid = tid_of(trace, e);
    // Room for the strings and at most about 250 bytes of keys and numbers.
    char* p = sink.reserve(320 + e.name.size() + e.op.size() + e.delegate_id.size() +
                           device.size() + block_args_.size());
    auto micros = [&](double ns) {
      if (std::isfinite(ns)) {
        p = json_micros_chars(p, ns);
      } else {
        p = put_literal(p, "null");
      }
    };
    // Tracks and instructions, mostly below 100, written in place.
    auto integer = [&](int64_t value) { p = detail::put_integer(p, value); };
    p = put_literal(p, ",\n{\"name\":\"");
    p = put_chars(p, e.name);
    p = put_literal(p, "\",\"cat\":\"");
    p = put_chars(p, category(e, device));
    p = put_literal(p, "\",\"ph\":\"X\",\"ts\":");
    micros(e.start_ns);
    p = put_literal(p, ",\"dur\":");
    micros(e.duration_ns);
    p = put_literal(p, ",\"pid\":1,\"tid\":");
    integer(tid);
    p = put_chars(p, block_args_);
    if (e.instruction >= 0) {
      p = put_literal(p, ",\"instruction\":");
      integer(e.instruction);
    }
    if (!e.op.empty()) {
      p = put_literal(p, ",\"op\":\"");
      p = put_chars(p, e.op);
      *p++ = '"';
    }
    if (!e.delegate_id.empty()) {
      p = put_literal(p, ",\"delegate_id\":\"");
      p = put_chars(p, e.delegate_id);
      *p++ = '"';
    }
    if (!device.empty()) {
      p = put_literal(p, ",\"device\":\"");
      p = put_chars(p, device);
      *p++ = '"';
    }
    p = put_literal(p, "}}");
    sink.commit(p);
    return true;
  }

  // `block_args_`: the members of `args` that are the block's: `,"args":{"block":B,"kind":"K"`
  // and `,"iteration":I` unless it is a load block.
  void set_block_args(uint32_t block, const TraceBlock& b) {
    args_block_ = block;
    const std::string_view kind = block_kind(b);
    block_args_plain_ = detail::json_plain(kind);
    block_args_ = ",\"args\":{\"block\":";
    block_args_ += std::to_string(block);
    block_args_ += ",\"kind\":\"";
    block_args_ += kind;
    block_args_ += '"';
    if (!b.load) {
      block_args_ += ",\"iteration\":";
      block_args_ += std::to_string(b.iteration);
    }
  }

  // Tracks: (method, delegate instruction or -2 for the method, or -3 with the device for a
  // profiler device's events), numbered from 1 in order of first appearance.
  int64_t tid_of(const Trace& trace, const TraceEvent& e) {
    const std::string_view device = event_device(e);
    const int32_t instruction = !device.empty() ? -3 : e.delegate ? e.instruction : -2;
    // Most events are on the track of the event before them; a block has one method.
    if (e.block == last_block_ && instruction == std::get<1>(key_) &&
        device == std::get<2>(key_)) {
      return last_tid_;
    }
    last_tid_ = find_tid(trace.blocks[e.block].method, instruction, device);
    last_block_ = e.block;
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
  static constexpr uint32_t kNoBlock = UINT32_MAX;
  uint32_t last_block_ = kNoBlock;  // the block of the event given `last_tid_`
  std::vector<std::string> track_names_;
  std::map<std::tuple<uint32_t, int32_t, int32_t>, size_t> issuers_;
  uint32_t args_block_ = kNoBlock;  // the block of `block_args_`
  std::string block_args_;
  bool block_args_plain_ = false;
  std::vector<Flow> flows_;
};

}  // namespace

std::string chrome_trace_json(const Trace& trace, const std::vector<size_t>& selected) {
  return chrome_trace_json(trace, selected, nullptr);
}

std::string chrome_trace_json(const Trace& trace, const std::vector<size_t>& selected,
                              const DebugMap* map) {
  std::string out;
  const std::function<void(std::string_view)> append = [&](std::string_view s) { out += s; };
  TextSink sink(append);
  auto put = [&](std::string_view s) { sink.put(s); };
  ChromeTraceWriter writer(trace, map);
  writer.add_tracks(trace, selected);
  writer.write_head(put);
  writer.write_events(trace, selected, sink, put);
  writer.write_tail(put);
  sink.flush();
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
  // A block of host events only, all selected, adds just its method's track and no flow: it
  // is not joined for that.
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    if (!selector.block_selected(trace, b)) continue;
    const TraceReader::BlockSummary summary = reader.block_summary(b);
    if (!summary.delegate_events && !selector.filters_events()) {
      if (summary.profile_events > 0) writer.add_method_track(trace.blocks[b].method);
      continue;
    }
    join_selected_block(reader, selector, trace, b, selected, BlockValues::Skipped);
    writer.add_tracks(trace, selected);
  }
  TextSink sink(write);
  auto put = [&](std::string_view s) { sink.put(s); };
  writer.write_head(put);
  for_each_selected_block(reader, selector, trace, selected, BlockValues::Skipped,
                          [&](size_t) { writer.write_events(trace, selected, sink, put); });
  writer.write_tail(put);
  sink.flush();
  return Error();
}

}  // namespace etkit::inspect
