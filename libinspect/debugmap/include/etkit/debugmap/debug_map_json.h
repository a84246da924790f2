#pragma once

// Reading and writing the `*.debugmap.json` format (formats/debugmap.md) into and from the
// debug-map model (debug_map.h). The reader rejects unknown fields, duplicate keys and every
// rule of the format, naming the file and the JSON path (json_path.h); the writer validates
// and writes deterministic text, so a map written twice is byte-identical. Host code: allocates
// freely, returns errors as values. nlohmann/json stays in the .cpp.

#include <string>
#include <string_view>

#include "etkit/debugmap/debug_map.h"
#include "etkit/runtime/result.h"

namespace etkit::debugmap {

/// Reads a debug map from JSON `text`; `source` (a file name) starts every error message.
/// Errors: `InvalidData` with the JSON path and what is wrong ("SOURCE: methods.forward.
/// instructions[2].kind: unknown kind 'kernal' (expected kernel, delegate, move, jump_false or
/// free)"), for text that is not JSON ("SOURCE: not JSON: ..."), a wrong `format`, a `version`
/// other than 1, unknown fields, and every rule of formats/debugmap.md.
Result<DebugMap> parse_debug_map(std::string_view text, std::string_view source);

/// Reads the debug map in the file at `path` ("-" is not special here). Errors: those of
/// `parse_debug_map`, and `AccessFailed` ("PATH: cannot open: No such file or directory").
Result<DebugMap> read_debug_map_file(const std::string& path);

/// Validates `map` and writes it, sorted, as deterministic JSON text (keys in byte order,
/// entries by chain and index, two-space indentation, final newline). Errors: those of
/// `validate_debug_map`.
Result<std::string> write_debug_map(const DebugMap& map);

/// The file a program's debug map goes in by default: `program_path` with its extension
/// replaced by `.debugmap.json` ("dir/model.pte" -> "dir/model.debugmap.json"; without an
/// extension it is appended). model-export writes the map there unless told otherwise.
std::string debug_map_path_for(std::string_view program_path);

}  // namespace etkit::debugmap
