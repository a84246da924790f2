#pragma once

// What a dump holds, at a glance (`etdump-inspect info`): who wrote it and with which clock,
// what was dropped and whether the run was interrupted, its blocks grouped into runs of one
// method and kind with their iterations and event counts by kind, profiler devices and
// warnings, and the debug buffer it needs. Works on ExecuTorch's dumps (no etkit metadata) as
// on etkit's.

#include <string>
#include <vector>

#include "etkit/inspect/table.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/runtime/result.h"

namespace etkit::inspect {

/// The report of the dump at `path`, as tables:
///   - `dump` (columns field, value): path, framing, writer, clock, ticks_per_second,
///     ticks_recorded (yes, or "no (nanoseconds assumed)"), blocks, events, warmup_executions,
///     dropped_events, dropped_payloads, incomplete_from (empty when complete), interrupted
///     (yes/no), profiler_devices, profiler_active, debug_buffer (the file beside the dump,
///     `debug_buffer_path_for`), debug_buffer_present (yes/no), values_with_payload;
///   - `blocks` (columns blocks, method, kind, iterations, count, profile, delegate, device,
///     values, allocations, incomplete): consecutive blocks of one method and kind, `blocks`
///     and `iterations` as half-open ranges `A:B` (iterations empty for load blocks), then the
///     number of events of each kind and of incomplete blocks;
///   - `profiler warnings` (column warning), only when the dump has some.
/// Errors: those of `read_etdump_file` and `build_trace`.
struct DumpInfo {
  std::vector<Table> tables;
  std::vector<std::string> warnings;  ///< `trace_warnings` of the dump (without the path).
};
Result<DumpInfo> dump_info(const std::string& path);
/// The same for the dump `reader` has opened (named by its path); it cannot fail after the open,
/// and reads only the blocks that have delegate events.
Result<DumpInfo> dump_info(TraceReader& reader);

}  // namespace etkit::inspect
