// The join of the owning `ETDump` model (`build_trace`); TraceReader (trace_reader.cpp) joins
// straight from the flatbuffer with the same per-block join (block_join.h).

#include "etkit/inspect/trace.h"

#include <algorithm>
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
    for (const Event& e : block.events) {
      if (e.kind != Event::Kind::Debug) continue;
      const DebugEvent& d = e.debug;
      std::string id = d.delegate_debug_id_int != -1 ? std::to_string(d.delegate_debug_id_int)
                                                     : d.delegate_debug_id_str;
      append_value(trace, b, value_index, d.chain_index, d.instruction_id, std::move(id), d.name,
                   d.value, joiner);
    }
    if (consume) std::vector<Event>().swap(dump.blocks[b].events);
  }
  return trace;
}

}  // namespace

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
