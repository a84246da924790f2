#pragma once

// etkit's metadata block of an ETDump, written once for its writer (`ETDumpWriter::serialize`)
// and its readers (libinspect's ETDump reader and trace join): a run block named exactly
// `etkit:metadata`, with no events, whose allocator names are `key=value` pairs
// (formats/README.md). ExecuTorch's readers see an empty block.

#include <string_view>

namespace etkit {

/// Name of the run block that carries etkit's metadata.
inline constexpr char kMetadataBlockName[] = "etkit:metadata";

/// The keys etkit writes, in the order it writes them. Profiler backends add their own
/// (`profiler.<device>.<field>`, see profiler_controller.h) after these.
namespace metadata_key {
/// Always `etkit`.
inline constexpr std::string_view kWriter = "writer";
/// The clock's name (`steady`, `fake`).
inline constexpr std::string_view kClock = "clock";
/// Ticks per second of the recorded timestamps, a positive integer.
inline constexpr std::string_view kTicksPerSecond = "ticks_per_second";
/// Events that did not fit in the event memory.
inline constexpr std::string_view kDroppedEvents = "dropped_events";
/// Tensor payloads that did not fit in (or were lost by) the data sink.
inline constexpr std::string_view kDroppedPayloads = "dropped_payloads";
}  // namespace metadata_key

/// The value etkit writes under `metadata_key::kWriter`.
inline constexpr std::string_view kWriterName = "etkit";

}  // namespace etkit
