#pragma once

// Where a dump's debug buffer lives, written once for the writer (trace-run's trace session,
// which keeps tensor payloads in memory and writes them beside the dump) and every reader
// (etdump-inspect `values` and `compare`, which look for it there when not told).

#include <string>
#include <string_view>

namespace etkit {

/// The debug buffer beside the dump at `etdump_path`: `.etdump` and `.etdp` are replaced by
/// `.debug.bin` ("run.etdump" -> "run.debug.bin"); any other name gets `.debug.bin` appended
/// ("run.dump" -> "run.dump.debug.bin", "run" -> "run.debug.bin").
std::string debug_buffer_path_for(std::string_view etdump_path);

}  // namespace etkit
