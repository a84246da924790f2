#pragma once

// The debug map of an exported program (formats/debugmap.md): for every method, each
// instruction with its operator and the debug handle of the description's operation, and a node
// per handle named after the operation's output ("<operator> -> <buffer>" for an operation that
// writes a buffer).

#include <string>

#include "etkit/export/exporter.h"
#include "etkit/debugmap/debug_map.h"

namespace etkit::exporter {

/// Builds the debug map of `program`; `program_name` is recorded as the map's `program` (the
/// `.pte` file name; may be empty). The shared buffer tables appear as methods without
/// instructions.
debugmap::DebugMap make_debug_map(const ExportedProgram& program, const std::string& program_name);

}  // namespace etkit::exporter
