#pragma once

// Reading ExecuTorch ETRecord files into a debug map (reference/formats.md §3).
//
// An ETRecord is a ZIP archive marked by an empty `ETRECORD_V0` entry. etkit reads its three
// plain-JSON maps: `debug_handle_map` (method -> instruction id -> handle or handles),
// `delegate_map` (method -> DelegateCall instruction id -> backend name and identifier ->
// handles) and `instruction_id_to_num_outs_map`; and, best effort, the nodes of the edge-dialect
// programs (`edge_dialect_exported_program/<method>`, or `edge_dialect_exported_program` for
// `forward` in older files): each node's debug handle, name, operator, source location and
// module path. Everything else (pickled state dicts, reference outputs) needs PyTorch and is
// listed but not read. The result is a `DebugMap` (etkit/inspect/debug_map.h) whose instruction
// ids are chain 0 indices, as ExecuTorch's emitter writes them.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/inspect/debug_map.h"

namespace etkit::inspect {

/// What etkit reads from an ETRecord.
struct ETRecord {
  std::vector<std::string> entries;  ///< Every entry name, in archive order.
  bool has_debug_handle_map = false;
  bool has_delegate_map = false;
  bool has_num_outs_map = false;
  /// The maps as a debug map: instructions from `debug_handle_map` (kind `delegate` with the
  /// backend for those in `delegate_map`, `kernel` without an operator otherwise), delegates
  /// from `delegate_map` (identifier kind `int` when every key is a canonical decimal int32,
  /// `string` otherwise) with `num_outputs`, nodes from the edge-dialect programs. Sorted.
  DebugMap map;
  /// Program entries whose nodes could not be read (not JSON, or not the expected graph
  /// shape), one message each. The maps above are complete regardless.
  std::vector<std::string> warnings;
};

/// Reads an ETRecord from `bytes`; `source` (a file name) starts every error message.
/// Errors: `InvalidData` for a file that is not a zip archive or is damaged ("SOURCE: not an
/// ETRecord: not a zip archive (...)", "SOURCE: entry 'delegate_map': CRC mismatch ..."), has no
/// `ETRECORD_V0` marker ("SOURCE: not an ETRecord: no ETRECORD_V0 entry (entries: ...)"), or
/// whose maps are not JSON or break a rule of formats/debugmap.md (the message names the JSON
/// path inside the entry: "SOURCE: delegate_map.forward.\"2\".delegate_map.\"-1\": identifier
/// -1 is the runtime's unset sentinel (kUnsetDelegateDebugIntId)"); `NotSupported` for
/// encrypted entries or compression other than stored and deflate.
Result<ETRecord> read_etrecord(std::span<const uint8_t> bytes, std::string_view source);

/// Reads the ETRecord in the file at `path`. Errors: those of `read_etrecord`, and
/// `AccessFailed` ("PATH: cannot open: No such file or directory").
Result<ETRecord> read_etrecord_file(const std::string& path);

}  // namespace etkit::inspect
