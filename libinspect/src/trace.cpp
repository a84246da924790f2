// The join of the owning `ETDump` model (`build_trace`); TraceReader (trace_reader.cpp) joins
// straight from the flatbuffer with the same per-block join (block_join.h).

#include "etkit/inspect/trace.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include "block_join.h"
#include "etkit/devtools/profiler_event_name.h"

namespace etkit::inspect {

using namespace detail;

namespace {

// The join of the owning model. With `consume`, each block's events are freed once joined.
Result<Trace> join_model(ETDump& dump, const std::string& path, bool consume) {
  Trace trace;
  trace.path = path;
  ETKIT_TRY(set_tick_rate(dump.metadata, trace));
  const double ns_per_tick = 1e9 / trace.ticks_per_second;

  // A first pass checks every span and finds the dump's first start.
  uint64_t first_start = std::numeric_limits<uint64_t>::max();
  for (size_t b = 0; b < dump.blocks.size(); ++b) {
    const RunBlock& block = dump.blocks[b];
    for (size_t i = 0; i < block.events.size(); ++i) {
      const Event& e = block.events[i];
      if (e.kind != Event::Kind::Profile) continue;
      Result<std::pair<uint64_t, uint64_t>> span =
          span_of(e.profile.start_time, e.profile.end_time);
      // The file position counts the metadata block only when it precedes this one; etkit
      // writes it last, so block indices are file indices.
      if (!span.ok()) return span.error().with_context("%s: run %zu event %zu", path.c_str(), b, i);
      first_start = std::min(first_start, span->first);
    }
  }

  StringTable& strings = *trace.strings;
  std::map<std::string, uint32_t> executions;  // method -> execution blocks seen
  for (const RunBlock& block : dump.blocks) add_block(block.name, executions, trace);
  ETKIT_TRY(apply_metadata(dump.metadata, trace));
  BlockJoiner joiner;
  for (size_t b = 0; b < dump.blocks.size(); ++b) {
    const RunBlock& block = dump.blocks[b];
    trace.blocks[b].first_event = trace.events.size();
    joiner.raw.clear();
    for (size_t i = 0; i < block.events.size(); ++i) {
      const Event& e = block.events[i];
      if (e.kind != Event::Kind::Profile) continue;
      const ProfileEvent& p = e.profile;
      RawEvent r;
      r.name = strings.intern(p.name);
      r.delegate_id = delegate_text(p.delegate_debug_id_int,
                                    strings.intern(p.delegate_debug_id_str), strings);
      if (!p.delegate_debug_metadata.empty()) {
        r.metadata = strings.intern(
            std::string_view(reinterpret_cast<const char*>(p.delegate_debug_metadata.data()),
                             p.delegate_debug_metadata.size()));
      }
      std::tie(r.start, r.elapsed) = *span_of(p.start_time, p.end_time);  // checked above
      r.index = static_cast<uint32_t>(i);
      r.chain = p.chain_index;
      r.instruction_id = p.instruction_id;
      joiner.raw.push_back(r);
    }
    joiner.join_events(trace, b, first_start, ns_per_tick);
    trace.blocks[b].num_events = trace.events.size() - trace.blocks[b].first_event;
    uint32_t value_index = 0;
    size_t slot = trace.values.size();
    for (const Event& e : block.events) {
      if (e.kind != Event::Kind::Debug) continue;
      const DebugEvent& d = e.debug;
      put_value(trace, slot, b, value_index, d.chain_index, d.instruction_id,
                   delegate_text(d.delegate_debug_id_int, strings.intern(d.delegate_debug_id_str),
                                 strings),
                   strings.intern(d.name), d.value, joiner);
    }
    if (consume) std::vector<Event>().swap(dump.blocks[b].events);
  }
  return trace;
}

}  // namespace

std::string_view block_kind(const TraceBlock& block) {
  if (block.load) return "load";
  return block.warmup ? "warmup" : "execute";
}

std::vector<std::string> trace_warnings(const Trace& trace) {
  std::vector<std::string> out;
  if (trace.dropped_events > 0) {
    size_t first = trace.blocks.size();
    size_t executions = 0;
    for (size_t b = 0; b < trace.blocks.size(); ++b) {
      if (!trace.blocks[b].incomplete) continue;
      first = std::min(first, b);
      if (!trace.blocks[b].load) ++executions;
    }
    std::string w = std::to_string(trace.dropped_events) + " event" +
                    (trace.dropped_events == 1 ? " was" : "s were") +
                    " dropped (the trace memory was full)";
    if (first < trace.blocks.size()) {
      w += "; block" + std::string(first + 1 < trace.blocks.size() ? "s " : " ") +
           std::to_string(first) + (first + 1 < trace.blocks.size() ? " on" : "") +
           " may be incomplete: " + std::to_string(executions) + " execution" +
           (executions == 1 ? " is" : "s are") + " left out of statistics";
    }
    out.push_back(std::move(w));
  }
  if (trace.dropped_payloads > 0) {
    out.push_back(std::to_string(trace.dropped_payloads) + " tensor payload" +
                  (trace.dropped_payloads == 1 ? " was" : "s were") +
                  " not stored (the debug buffer was full): those values have no data");
  }
  if (trace.clock_drift != 0) out.push_back(clock_drift_warning(trace.clock_drift));
  return out;
}

std::string clock_drift_warning(double drift) {
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.2f%%", 100 * drift);
  return std::string("the TSC clock ran ") + percent +
         " off the system clock during the run (it changed rate or jumped): event times may be "
         "off by as much";
}

std::string_view event_device(const TraceEvent& e) {
  if (!e.device) return {};
  return prof::device_of_event_name(e.name);
}

Result<Trace> build_trace(const ETDump& dump, const std::string& path) {
  // join_model() only writes to the dump when it consumes it.
  return join_model(const_cast<ETDump&>(dump), path, false);
}

Result<Trace> build_trace(ETDump&& dump, const std::string& path) {
  return join_model(dump, path, true);
}

}  // namespace etkit::inspect
