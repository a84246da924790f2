#pragma once

// The debug map of an exported program (formats/debugmap.md): for every method, each
// instruction with its operator and the debug handle of the description's operation, and a node
// per handle named after the operation's output ("<operator> -> <buffer>" for an operation that
// writes a buffer). Also the nodes alone of a description, as debugmap-build's `--model` reads
// them: the exporter numbers the handles (model.h, `Op::debug_handle`), so only it says which
// handle is which operation.

#include <string>

#include "etkit/export/exporter.h"
#include "etkit/export/model.h"
#include "etkit/runtime/result.h"
#include "etkit/debugmap/debug_map.h"

namespace etkit::exporter {

/// Builds the debug map of `program`; `program_name` is recorded as the map's `program` (the
/// `.pte` file name; may be empty). The shared buffer tables appear as methods without
/// instructions.
debugmap::DebugMap make_debug_map(const ExportedProgram& program, const std::string& program_name);

/// The nodes of `model`: per method, one per operation, keyed by its debug handle, named as in
/// `make_debug_map` (name and operator). No instructions or delegate entries: the program, not
/// the description, says which instruction runs which operation.
debugmap::DebugMap model_node_map(const Model& model);

/// `model_node_map` of the description at `path`. Errors: those of `read_model_file`.
Result<debugmap::DebugMap> read_model_node_map(const std::string& path);

}  // namespace etkit::exporter
