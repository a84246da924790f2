#pragma once

// etkit's metadata block of an ETDump, written once for its writer (`ETDumpWriter::serialize`)
// and its readers (libinspect's ETDump reader and trace join): a run block named exactly
// `etkit:metadata`, with no events, whose allocator names are `key=value` pairs
// (formats/README.md). ExecuTorch's readers see an empty block.

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace etkit {

/// Name of the run block that carries etkit's metadata.
inline constexpr char kMetadataBlockName[] = "etkit:metadata";

/// The keys etkit writes, in the order it writes them. Profiler backends add their own
/// (`profiler.<device>.<field>`, see profiler_controller.h) after these.
namespace metadata_key {
/// Always `etkit`.
inline constexpr std::string_view kWriter = "writer";
/// The clock's name (`steady`, `tsc`, `fake`).
inline constexpr std::string_view kClock = "clock";
/// Ticks per second of the recorded timestamps, a positive integer.
inline constexpr std::string_view kTicksPerSecond = "ticks_per_second";
/// Events that did not fit in the event memory.
inline constexpr std::string_view kDroppedEvents = "dropped_events";
/// Tensor payloads that did not fit in (or were lost by) the data sink.
inline constexpr std::string_view kDroppedPayloads = "dropped_payloads";
/// Run blocks (indices among the dump's run data, in file order) that record warm-up
/// executions, as half-open ranges `A:B` separated by commas (`format_block_ranges`). Absent
/// when there was no warm-up.
inline constexpr std::string_view kWarmupBlocks = "warmup_blocks";
/// Index of the first run block that may miss events: the one open when the first event was
/// dropped; every later block may miss events too. Absent when nothing was dropped.
inline constexpr std::string_view kIncompleteFrom = "incomplete_from";
/// `1` when the run was stopped early (SIGINT or SIGTERM) and the dump written after the
/// iteration in progress. Absent otherwise.
inline constexpr std::string_view kInterrupted = "interrupted";
/// With the TSC clock, when it parted from the system clock over the run by more than the
/// session's limit (`kClockDriftLimit`, trace_session.h): how far, as a signed fraction of the
/// system clock's time (`ClockSpan::drift`, "%.6g"). The dump's times are off by about as
/// much. Absent otherwise.
inline constexpr std::string_view kClockDrift = "clock_drift";
}  // namespace metadata_key

/// Formats block ranges `[first, end)` as `A:B,C:D` (the value of `kWarmupBlocks`).
inline std::string format_block_ranges(const std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
  std::string out;
  for (const auto& [first, end] : ranges) {
    if (!out.empty()) out += ',';
    out += std::to_string(first);
    out += ':';
    out += std::to_string(end);
  }
  return out;
}

/// Parses what `format_block_ranges` writes into `out` (cleared first). False for any other
/// text: a range that is empty or reversed, a number that is not a decimal integer, an empty
/// item.
inline bool parse_block_ranges(std::string_view text,
                               std::vector<std::pair<uint64_t, uint64_t>>* out) {
  out->clear();
  auto number = [](std::string_view t, uint64_t* v) {
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
    return !t.empty() && ec == std::errc() && end == t.data() + t.size();
  };
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const size_t colon = item.find(':');
    uint64_t first = 0;
    uint64_t end = 0;
    if (colon == std::string_view::npos || !number(item.substr(0, colon), &first) ||
        !number(item.substr(colon + 1), &end) || end <= first) {
      return false;
    }
    out->emplace_back(first, end);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
    if (text.empty()) return false;  // a trailing comma
  }
  return !out->empty();
}

/// The value etkit writes under `metadata_key::kWriter`.
inline constexpr std::string_view kWriterName = "etkit";

}  // namespace etkit
