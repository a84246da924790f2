#pragma once

// Building a program's debug map from several sources (`debugmap-build`).
//
// The program gives the skeleton: every instruction of every chain with its kind and operator
// or backend (`program_debug_map`). Sources add what the program does not know: debug handles
// per instruction, delegate identifier maps and node names, from ETRecord files
// (etkit/inspect/etrecord.h), debug maps written by model-export or by hand, and model
// descriptions. `merge_debug_maps` checks every source against the program (the methods and
// instructions it names exist; a delegate entry points at a DelegateCall of its backend, so its
// identifiers can occur) and against the sources before it (the same instruction, delegate
// call or node described differently is a conflict naming both files). `build_debug_map` is
// what `debugmap-build` runs: it reads every input in a fixed order (ETRecords, delegate maps,
// the model description) and merges them. Host code; errors are values.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/runtime/program.h"
#include "etkit/runtime/result.h"
#include "etkit/inspect/debug_map.h"

namespace etkit::inspect {

/// One input of a build.
struct DebugMapSource {
  std::string name;  ///< The file, as messages show it.
  DebugMap map;
  /// The map's `kernel` kinds are guesses (an ETRecord only says which instructions are
  /// delegate calls): a `kernel` entry without an operator then matches any instruction that is
  /// not a delegate call.
  bool inferred_kinds = false;
  /// The source's nodes are a whole graph of the model (an ETRecord's edge program, a model
  /// description), so every operator the program calls in a method must be among the
  /// operators of that method's nodes: a graph of another model is refused. Hand-written maps
  /// may list a few nodes only and are not checked this way.
  bool whole_graph = false;
};

/// Every instruction of every method of `program`: chain, index, kind, and the operator of a
/// kernel call ("aten::add.out") or the backend of a delegate call. No handles, delegates or
/// nodes; every method is present, even one without instructions. `program_name` becomes the
/// map's `program`.
DebugMap program_debug_map(const Program& program, std::string program_name);

/// Merges `sources`, in order, into `base` (a `program_debug_map` of the program named
/// `program_source` in messages) and returns the sorted, validated result.
///
/// Rules: a source's methods and instructions must exist in the program, with the same kind,
/// operator (when the source names one) and backend; its delegate entries must point at a
/// DelegateCall of their backend. For a `whole_graph` source with nodes, each kernel call of
/// the method must call an operation the graph has, compared by name without namespace and
/// overload (`aten::add.out` is the `aten::add.Tensor` of an edge graph); the operators
/// ExecuTorch adds after the graph (`executorch_prim::`, `aten::copy_`) are not compared. Handles, delegate entries and nodes already given by an
/// earlier source must be equal (a node's empty fields are filled in, not compared). After
/// merging, a delegate call without handles stands for the union of its identifiers' handles,
/// and every identifier's handles must be among its delegate call's handles.
///
/// Errors: `InvalidData`, naming the source and the JSON path of the offending entry
/// ("b.json: methods.forward.delegates[0]: instruction 0 of chain 0 is a kernel call
/// (aten::add.out) in the program, not a delegate call: its identifiers cannot occur"), or both
/// sources for a conflict ("method 'forward', instruction 1 of chain 0: debug handles [2] in
/// b.json but [3] in a.bin"); `InvalidData` for a graph that does not fit the program, naming the
/// first kernel call whose operation the graph lacks.
Result<DebugMap> merge_debug_maps(DebugMap base, std::string_view program_source,
                                  const std::vector<DebugMapSource>& sources);

/// The inputs of `build_debug_map` (debugmap-build's arguments).
struct DebugMapBuildRequest {
  std::string program;                     ///< The `.pte` or `.bpte` file.
  std::vector<std::string> etrecords;      ///< ETRecord files, in order.
  std::vector<std::string> delegate_maps;  ///< Debug maps (formats/debugmap.md), in order.
  std::string model;                       ///< A model description; empty: none.
  /// Reads the nodes of the model description at a path (handle -> name, operator). The
  /// exporter numbers a description's debug handles and libinspect sits below it, so the caller
  /// passes libexport's `exporter::read_model_node_map`. Needed when `model` is set.
  std::function<Result<DebugMap>(const std::string& path)> read_model_nodes;
  /// Receives each warning ("PATH: ..."; ETRecord program entries whose nodes could not be
  /// read) as it occurs, also when the build fails later; may be empty.
  std::function<void(const std::string& warning)> warn;
};

/// A built debug map.
struct BuiltDebugMap {
  DebugMap map;       ///< Sorted and validated.
  std::string text;   ///< `write_debug_map(map)`.
  /// "2 methods, 5 instructions (4 with debug handles), 1 delegate call (3 identifiers),
  /// 4 nodes" (`debug_map_summary`).
  std::string summary;
};

/// Opens `request.program`, reads its ETRecords, delegate maps and model description in that
/// order and merges them into the program's map (`merge_debug_maps`). The program's file name
/// without its folder becomes the map's `program`. Each XnnpackBackend call is then joined to
/// its blob's nodes (`xnnpack_delegate_nodes`): a source's integer identifiers for the call (an
/// ETRecord's delegate map, node debug handle -> the model's handles) must each be a node's
/// handle; every node no source mapped stands for its own handle; a call given string
/// identifiers is kept as given. Errors: the first of opening the program,
/// reading an input (`read_etrecord_file`, `read_debug_map_file`, `read_model_nodes`),
/// merging, decoding an XNNPACK blob, an identifier that is no node's handle ("e.bin: method
/// 'forward', instruction 0 of chain 0: identifier 7 is not the debug handle of a node of the
/// XnnpackBackend blob (its nodes' handles: [1, 65535])"), and writing the text; each names its
/// file.
Result<BuiltDebugMap> build_debug_map(const DebugMapBuildRequest& request);

/// One line on `map`'s size: methods, instructions (and how many have debug handles),
/// delegate calls (every DelegateCall instruction, with or without a delegate entry) and the
/// identifiers of their entries, nodes, each counted with its noun in the singular or plural.
std::string debug_map_summary(const DebugMap& map);

}  // namespace etkit::inspect
