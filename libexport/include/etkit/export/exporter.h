#pragma once

// model description -> `.pte` program (ExecuTorch's ET12 format, field for field).
//
// `export_program` plans memory (activations in memory id 1, shared by lifetime; persistent
// buffers in the state arena, memory id 2, at one offset per buffer in every method), writes
// constants into the constant segment and buffer initial values into the mutable data segment
// (both behind the `eh00` extended header, at ExecuTorch's alignments), and adds the two shared
// buffer tables (etkit/host/shared_buffer_tables.h) when there are buffers. The interfaces it
// shares with the runtime and the lowerings (shared-buffer tables, delegate groups and
// lowering, debug-handle numbering) are recorded in DESIGN.md section 9. The file layout is described in formats/model.md ("What model-export
// writes"). Host code: allocates freely, returns errors as values.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/export/model.h"
#include "etkit/debugmap/debug_map.h"

namespace etkit::exporter {

/// The lowering hook for operations marked with `"delegate"` (issue #7). Consecutive ops of a
/// method with the same group form a region; the exporter hands each region to the lowering,
/// writes the returned blob as a segment, adds a `BackendDelegate` (the group's backend, the
/// blob by SEGMENT reference, the compile specs) and replaces the region's ops by one
/// DelegateCall whose args are the region's inputs, then its outputs (value indices), as
/// ExecuTorch's emitter does. The debug map gets a `delegate` instruction with the handles of
/// every op of the region and a delegate entry with the identifiers the lowering reports. Values
/// used only inside a region stay in the value table (planned, unused at run time). Until a
/// lowering is passed in `ExportOptions`, marked operations are an error naming their JSON path.
class DelegateLowering {
 public:
  virtual ~DelegateLowering() = default;

  /// One region to lower.
  struct Region {
    const Model* model = nullptr;
    const Method* method = nullptr;
    const DelegateGroup* group = nullptr;
    std::vector<size_t> ops;       ///< Indices into `method->ops`, consecutive.
    std::vector<int32_t> inputs;   ///< Value indices the region reads that it does not define.
    std::vector<int32_t> outputs;  ///< Values it defines that are used after it (or are method
                                   ///< outputs), then buffers it writes.
  };
  /// What the lowering returns for a region.
  struct Lowered {
    std::vector<uint8_t> processed;  ///< The backend's blob.
    std::vector<std::pair<std::string, std::vector<uint8_t>>> compile_specs;
    /// Delegate debug identifier -> debug handles of the region's ops (DelegateMappingBuilder's
    /// result); of the group's identifier kind.
    std::map<debugmap::DelegateIdentifier, std::vector<uint32_t>> identifiers;
    /// Constant inputs of the region the blob carries itself (value indices, a subset of
    /// `Region::inputs`): the DelegateCall does not pass them, and a constant nothing else in
    /// the method reads keeps its value but no data in the program.
    std::vector<int32_t> embedded_inputs;
  };
  /// Lowers `region`. Errors are reported with the region's first op path in front.
  virtual Result<Lowered> lower(const Region& region) const = 0;
};

/// Options of `export_program`.
struct ExportOptions {
  /// The lowering for delegate-marked ops; null: such ops are refused.
  const DelegateLowering* lowering = nullptr;
};

/// Where a persistent buffer lives in the state arena (memory id 2).
struct BufferPlacement {
  std::string name;
  uint64_t offset = 0;
  uint64_t allocated = 0;  ///< Bytes reserved (aligned to 16).
  uint64_t nbytes = 0;     ///< Bytes of the tensor.
  int64_t numel = 0;
  std::vector<std::string> methods;
};

/// Memory plan of one method, for `--report`.
struct MethodReport {
  std::string name;
  size_t planned_tensors = 0;   ///< Tensors in memory id 1 (inputs, intermediates, outputs).
  uint64_t unshared_bytes = 0;  ///< Sum of their sizes: what a plan without sharing needs.
  uint64_t planned_bytes = 0;   ///< Memory id 1 as planned (with sharing, 16-byte aligned).
  uint64_t arena_bytes = 0;     ///< Memory id 2 (the state arena); 0 without buffers.
};

/// One instruction, for the debug map.
struct InstructionRecord {
  bool delegate = false;                ///< A DelegateCall (else a kernel call).
  std::string op;                       ///< "aten::add.out", or the backend id of a delegate call
  std::vector<uint32_t> debug_handles;  ///< The op's handle, or those of the region's ops.
  /// Handle -> (the op's name in the description, its operator).
  std::vector<std::pair<uint32_t, std::pair<std::string, std::string>>> nodes;
  std::string identifier_kind;          ///< Delegate calls: "int" or "string".
  std::map<debugmap::DelegateIdentifier, std::vector<uint32_t>> identifiers;  ///< Delegate calls.
  uint32_t num_outputs = 0;             ///< Delegate calls: outputs of the call.
};

/// A written program and what was decided while writing it.
struct ExportedProgram {
  std::vector<uint8_t> bytes;                   ///< The `.pte` file.
  std::vector<MethodReport> methods;            ///< Description order (user methods only).
  std::vector<BufferPlacement> buffers;         ///< Arena order.
  uint64_t arena_bytes = 0;
  /// Method name -> instructions in chain 0 order (user methods only).
  std::vector<std::pair<std::string, std::vector<InstructionRecord>>> instructions;
};

/// Writes `model` as a program. Errors: `NotImplemented` naming the JSON path of the first
/// delegate-marked op when no lowering is given; a lowering's error, with the region's first op
/// path in front.
Result<ExportedProgram> export_program(const Model& model, const ExportOptions& options = {});

/// The `--report` text: per method, planned bytes against the unshared sum, then the arena.
std::string format_report(const ExportedProgram& program);

}  // namespace etkit::exporter
