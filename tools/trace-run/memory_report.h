#pragma once

// trace-run --memory: what each loaded method holds and has used (etkit/host/runner.h
// `MethodMemoryUse`) and the process's peak RSS, as text lines and as the JSON `memory` object.
// Field names are stable (man/trace-run.1).

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "etkit/host/runner.h"

namespace etkit::tools {

/// Methods by name with their use, in the order they are reported.
using MethodMemoryList = std::vector<std::pair<std::string, MethodMemoryUse>>;

/// Prints, per method, the planned buffers by memory id (shared ones marked), the method
/// allocator's use and the delegates' share of it, the temp allocator's peak, the shared-state
/// bytes and the unplanned outputs, then the process's peak RSS.
void print_memory_text(const MethodMemoryList& methods);

/// {"methods": [...], "peak_rss_bytes": N}, the same facts as the text.
nlohmann::ordered_json memory_json(const MethodMemoryList& methods);

}  // namespace etkit::tools
