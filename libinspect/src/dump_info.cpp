#include "etkit/inspect/dump_info.h"

#include <sys/stat.h>

#include "etkit/devtools/etdump_metadata.h"
#include "etkit/host/debug_buffer_path.h"
#include "etkit/inspect/trace.h"
#include "etkit/inspect/trace_reader.h"

namespace etkit::inspect {

namespace {

std::string range_text(uint64_t first, uint64_t end) {
  return std::to_string(first) + ":" + std::to_string(end);
}

std::string metadata_or(const Trace& trace, std::string_view key, const std::string& fallback) {
  auto it = trace.metadata.find(std::string(key));
  return it == trace.metadata.end() ? fallback : it->second;
}

// Events of one block by kind.
struct Counts {
  int64_t profile = 0;
  int64_t delegate = 0;
  int64_t device = 0;
  int64_t values = 0;
  int64_t allocations = 0;
  int64_t payloads = 0;  // tensors with a payload in the debug buffer
};

}  // namespace

Result<DumpInfo> dump_info(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(TraceReader reader, TraceReader::open(path));
  return dump_info(reader);
}

Result<DumpInfo> dump_info(TraceReader& reader) {
  // One block joined at a time: the dump's events are never all in memory.
  Trace trace = reader.skeleton();
  const std::string path = trace.path;
  std::vector<Counts> counts(trace.blocks.size());
  int64_t num_events = 0;
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    const TraceReader::BlockSummary summary = reader.block_summary(b);
    Counts& c = counts[b];
    c.allocations = summary.allocation_events;
    c.values = summary.debug_events;
    c.payloads = static_cast<int64_t>(summary.payloads);
    if (summary.profile_events == 0) continue;
    // Without delegate events every event is a host profile event: nothing to join.
    if (!summary.delegate_events) {
      c.profile = summary.profile_events;
      num_events += summary.profile_events;
      continue;
    }
    reader.rejoin_events(b, trace);
    num_events += static_cast<int64_t>(trace.events.size());
    for (const TraceEvent& e : trace.events) {
      if (e.device) {
        ++c.device;
      } else if (e.delegate) {
        ++c.delegate;
      } else {
        ++c.profile;
      }
    }
  }
  const bool size_prefixed = reader.size_prefixed();

  namespace key = metadata_key;
  const bool etkit = !trace.metadata.empty();
  Table info;
  info.name = "dump";
  info.title = "dump " + path;
  info.columns = {{"field", 0}, {"value", 0}};
  auto row = [&](const char* field, Cell value) {
    info.rows.push_back({std::string(field), std::move(value)});
  };
  size_t warmup = 0;
  int64_t values_with_payload = 0;
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    if (trace.blocks[b].warmup) ++warmup;
    values_with_payload += counts[b].payloads;
  }
  row("path", path);
  row("framing", std::string(size_prefixed ? "size-prefixed" : "not size-prefixed"));
  row("writer", metadata_or(trace, key::kWriter, "unknown (no etkit metadata)"));
  row("clock", metadata_or(trace, key::kClock, etkit ? "unknown" : "unknown (no etkit metadata)"));
  row("ticks_per_second", static_cast<int64_t>(trace.ticks_per_second));
  row("ticks_recorded", std::string(trace.ticks_recorded ? "yes" : "no (nanoseconds assumed)"));
  row("blocks", static_cast<int64_t>(trace.blocks.size()));
  row("events", num_events);
  row("warmup_executions", static_cast<int64_t>(warmup));
  row("dropped_events", static_cast<int64_t>(trace.dropped_events));
  row("dropped_payloads", static_cast<int64_t>(trace.dropped_payloads));
  Cell incomplete;
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    if (trace.blocks[b].incomplete) {
      incomplete = static_cast<int64_t>(b);
      break;
    }
  }
  row("incomplete_from", incomplete);
  row("interrupted", std::string(trace.interrupted ? "yes" : "no"));
  row("profiler_devices", metadata_or(trace, "profiler.devices", ""));
  row("profiler_active", metadata_or(trace, "profiler.active", ""));
  const std::string buffer = debug_buffer_path_for(path);
  struct stat st {};
  const bool present = ::stat(buffer.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  row("debug_buffer", buffer);
  row("debug_buffer_present", std::string(present ? "yes" : "no"));
  row("values_with_payload", values_with_payload);
  // Empty cells print as nothing in text and null in JSON.
  for (auto& r : info.rows) {
    if (const auto* s = std::get_if<std::string>(&r[1]); s != nullptr && s->empty()) r[1] = Cell();
  }

  Table blocks;
  blocks.name = "blocks";
  blocks.title = "blocks of " + path;
  blocks.columns = {{"blocks", 0},  {"method", 0},   {"kind", 0},   {"iterations", 0},
                    {"count", 0},   {"profile", 0},  {"delegate", 0}, {"device", 0},
                    {"logged_values", 0},  {"allocations", 0}, {"incomplete", 0}};
  for (size_t b = 0; b < trace.blocks.size();) {
    const TraceBlock& first = trace.blocks[b];
    size_t end = b + 1;
    while (end < trace.blocks.size() && trace.blocks[end].method == first.method &&
           block_kind(trace.blocks[end]) == block_kind(first) &&
           (first.load || trace.blocks[end].iteration == trace.blocks[end - 1].iteration + 1)) {
      ++end;
    }
    Counts sum;
    int64_t incomplete_blocks = 0;
    for (size_t k = b; k < end; ++k) {
      sum.profile += counts[k].profile;
      sum.delegate += counts[k].delegate;
      sum.device += counts[k].device;
      sum.values += counts[k].values;
      sum.allocations += counts[k].allocations;
      incomplete_blocks += trace.blocks[k].incomplete ? 1 : 0;
    }
    Cell iterations;
    if (!first.load) {
      iterations = range_text(first.iteration, trace.blocks[end - 1].iteration + uint64_t{1});
    }
    blocks.rows.push_back({range_text(b, end), first.method, std::string(block_kind(first)),
                           iterations, static_cast<int64_t>(end - b), sum.profile, sum.delegate,
                           sum.device, sum.values, sum.allocations, incomplete_blocks});
    b = end;
  }

  std::vector<Table> out = {std::move(info), std::move(blocks)};
  Table warnings;
  warnings.name = "profiler_warnings";
  warnings.title = "profiler warnings of " + path;
  warnings.columns = {{"warning", 0}};
  for (int n = 1;; ++n) {
    auto it = trace.metadata.find("profiler.warning." + std::to_string(n));
    if (it == trace.metadata.end()) break;
    warnings.rows.push_back({it->second});
  }
  if (!warnings.rows.empty()) out.push_back(std::move(warnings));
  return DumpInfo{std::move(out), trace_warnings(trace)};
}

}  // namespace etkit::inspect
